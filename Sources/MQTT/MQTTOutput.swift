import Events
import LocationCore
import LocationServices

/// Payload format of fixes and region events (`--mqtt-format`).
public enum MQTTFormat: String, Sendable, CaseIterable {
    /// Lodestar JSON (docs/output.md), one object per message.
    case lodestar
    /// OwnTracks `_type: location` / `_type: transition` (OwnTracks Recorder, the OwnTracks apps' friends view).
    case owntracks
}

/// The topics of one device under a prefix (docs/fleet.md, "Topic layout").
public struct MQTTTopics: Sendable, Hashable {
    public var prefix: String
    public var device: String
    public var format: MQTTFormat
    public init(prefix: String, device: String, format: MQTTFormat = .lodestar) {
        self.prefix = prefix; self.device = device; self.format = format
    }
    public var base: String { prefix + "/" + device }
    /// Fixes: `P/D/fix` (Lodestar) or `P/D` (OwnTracks' own layout: owntracks/USER/DEVICE).
    public var fix: String { format == .owntracks ? base : base + "/fix" }
    /// Region enter/exit, visits, significant changes (OwnTracks: transitions).
    public var event: String { base + "/event" }
    public var heading: String { base + "/heading" }
    public var sky: String { base + "/sky" }
    public var status: String { base + "/status" }
    /// Retained "online" / "offline" (the last will).
    public var availability: String { base + "/availability" }
    /// Events `lodestar fleet` computes for this device.
    public var fleetEvent: String { base + "/fleet/event" }
}

/// The adapter between the pipeline's output events and an `MQTTPublisher`: where the CLI builds its sinks, it
/// forwards each `OutputEvent` here (docs/fleet.md). Runs on the pipeline thread and never blocks.
public final class MQTTOutput {
    public let topics: MQTTTopics
    public let publisher: MQTTPublisher
    /// True when the services stage replaces the fix stream (update policy / deferral,
    /// `OutputEvent.isReplacedByServices`): publish the delivered fixes instead.
    public var filtersFixes = false
    public private(set) var published = 0

    public init(publisher: MQTTPublisher, topics: MQTTTopics) {
        self.publisher = publisher
        self.topics = topics
    }

    public func consume(_ event: OutputEvent) {
        switch event {
        case .fix(let l):
            if !event.isReplacedByServices(filtersFixes: filtersFixes) { publishFix(l) }
        case .service(let s):
            switch s {
            case .location(let u): if filtersFixes { publishFix(u.location ?? Self.noFix(u.time)) }
            case .batch(let b): if filtersFixes { for l in b.locations { publishFix(l) } }
            case .region(let r):
                if topics.format == .owntracks { send(topics.event, MQTTPayload.ownTracksTransition(r, device: topics.device), durable: true) }
                else { send(topics.event, MQTTPayload.lodestar(event), durable: true) }
            case .visit, .significantChange:
                if topics.format == .lodestar { send(topics.event, MQTTPayload.lodestar(event), durable: true) }
            case .heading: break
            }
        case .heading:
            send(topics.heading, MQTTPayload.lodestar(event), durable: false)
        case .sky(let s):
            send(topics.sky, MQTTPayload.skySummary(s), durable: false)
        case .status(let st):
            if st.source != "mqtt" { send(topics.status, MQTTPayload.lodestar(event), durable: false) }
        case .availability:
            send(topics.status, MQTTPayload.lodestar(event), durable: false)
        case .calibrationNeeded, .calibrationRefined, .sentence, .lateFix:
            break   // a late fix would replace the retained newer one
        }
    }

    private func publishFix(_ l: Location) {
        switch topics.format {
        case .lodestar:
            send(topics.fix, MQTTPayload.lodestar(.fix(l)), durable: true, retain: true)
        case .owntracks:
            if let p = MQTTPayload.ownTracksLocation(l, device: topics.device) { send(topics.fix, p, durable: true, retain: true) }
        }
    }

    private func send(_ topic: String, _ payload: [UInt8], durable: Bool, retain: Bool = false) {
        published += 1
        publisher.publish(.init(topic: topic, payload: payload, qos: durable ? 1 : 0, retain: retain, durable: durable))
    }

    static func noFix(_ t: Timestamp) -> Location {
        var l = Location()
        l.time = t
        l.mode = .noFix
        return l
    }

    /// Retained messages for every connect (availability "online", Home Assistant discovery), the clean-exit
    /// "offline", and the last will.
    public static func announcements(topics: MQTTTopics, homeAssistantPrefix: String?) -> (onConnect: [MQTTPublisher.Message], onDisconnect: [MQTTPublisher.Message], will: (topic: String, payload: [UInt8], qos: Int32, retain: Bool)) {
        var onConnect: [MQTTPublisher.Message] = [
            .init(topic: topics.availability, payload: Array("online".utf8), qos: 1, retain: true, durable: false),
        ]
        if let ha = homeAssistantPrefix {
            for (topic, payload) in MQTTPayload.homeAssistantDiscovery(topics: topics, discoveryPrefix: ha) {
                onConnect.append(.init(topic: topic, payload: payload, qos: 1, retain: true, durable: false))
            }
        }
        let offline: [UInt8] = Array("offline".utf8)
        return (onConnect, [.init(topic: topics.availability, payload: offline, qos: 1, retain: true, durable: false)],
                (topics.availability, offline, 1, true))
    }
}
