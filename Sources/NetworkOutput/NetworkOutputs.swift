import Events
import LocationCore
import NIOCore

/// The one attachment point between the pipeline's `OutputEvent`s and the network outputs (gpsd-protocol
/// server, NMEA TCP server, NMEA over UDP, chrony): the CLI calls `publish` for every event, on the pipeline's
/// thread. Each event is encoded once per format here; servers fan the bytes out on their own event loop.
public final class NetworkOutputs: OutputEventConsumer {
    public var gpsd: OutputServer?
    public var nmea: OutputServer?
    public var udp: UDPNMEASender?
    public var chrony: ChronySOCKSink?
    /// The location service (`--service`): every event as a Lodestar JSON line.
    public var events: OutputServer?
    private var eventEncoder = LodestarJSONEncoder()
    private var json: GpsdJSONEncoder
    private var nmeaEncoder: NMEAOutputEncoder
    private var scratch = LocationCore.ByteBuffer(capacity: 1 << 14)

    public init(device: String, headingDevice: String? = nil, headingTalker: String = "HC") {
        json = GpsdJSONEncoder(device: device, headingDevice: headingDevice)
        nmeaEncoder = NMEAOutputEncoder(headingTalker: headingTalker)
    }

    public var isEmpty: Bool { gpsd == nil && nmea == nil && udp == nil && chrony == nil && events == nil }
    /// Location services filter the fixes: raw `fix` events are not sent (`OutputEvent.isReplacedByServices`).
    public var filtersFixes = false
    /// Unpaced replay: every 16 events, wait (≤ 1 s) for clients that have a quarter of their queue waiting.
    public var pacesWithClients = false
    private var sinceWait = 0

    /// `OutputEventConsumer`: every event of the session, on the pipeline's thread.
    public func consume(_ event: OutputEvent) {
        if event.isReplacedByServices(filtersFixes: filtersFixes) { return }
        publish(event)
        if pacesWithClients {
            sinceWait += 1
            if sinceWait >= 16 { sinceWait = 0; waitForClients() }
        }
    }

    /// A session ended (replay: one per file); the servers stay up until `shutdown`.
    public func finish() {}

    private var identified = false

    public func publish(_ event: OutputEvent) {
        if case .fix(let l) = event { chrony?.send(l) }
        if case .status(let s) = event, let identity = s.receiver {
            identified = true
            gpsd?.identify(identity)
        } else if !identified, case .fix(let l) = event, l.accuracyFromReceiver {
            // Receiver accuracies come from u-blox's binary protocol until another vendor's is decoded.
            identified = true
            gpsd?.identify(ReceiverIdentity(driver: "u-blox"))
        }
        if let events {
            scratch.removeAll()
            eventEncoder.encode(event, into: &scratch)
            if let b = Self.nio(scratch) { events.publish(Broadcast(kind: .other, json: b, nmea: nil)) }
        }
        guard gpsd != nil || nmea != nil || udp != nil else { return }
        let kind: Broadcast.Kind = switch event {
        case .fix: .tpv
        case .sky: .sky
        case .heading: .att
        default: .other
        }
        var jsonBuffer: NIOCore.ByteBuffer?
        if gpsd != nil {
            scratch.removeAll()
            json.encode(event, into: &scratch)
            jsonBuffer = Self.nio(scratch)
        }
        var nmeaBuffer: NIOCore.ByteBuffer?
        scratch.removeAll()
        nmeaEncoder.encode(event, into: &scratch)
        if let udp, !scratch.isEmpty { scratch.withBytes { udp.send($0) } }
        if gpsd != nil || nmea != nil { nmeaBuffer = Self.nio(scratch) }
        guard jsonBuffer != nil || nmeaBuffer != nil else { return }
        let b = Broadcast(kind: kind, json: jsonBuffer, nmea: nmeaBuffer)
        gpsd?.publish(b)
        if nmeaBuffer != nil { nmea?.publish(b) }
    }

    static func nio(_ b: borrowing LocationCore.ByteBuffer) -> NIOCore.ByteBuffer? {
        guard !b.isEmpty else { return nil }
        return b.withBytes { p in
            var out = ByteBufferAllocator().buffer(capacity: p.count)
            out.writeBytes(UnsafeRawBufferPointer(p))
            return out
        }
    }

    /// Waits (at most 1 s) until no client has more than a quarter of its queue waiting: an unpaced replay then
    /// runs at the speed of its clients instead of dropping for them.
    public func waitForClients() {
        for server in [gpsd, nmea, events].compactMap({ $0 }) {
            server.waitUntilQueuesBelow(server.hub.maximumQueued / 4, timeoutSeconds: 1)
        }
    }

    /// Stops every server after letting clients drain (at most `drainSeconds`).
    public func shutdown(drainSeconds: Double = 2) {
        gpsd?.shutdown(drainSeconds: drainSeconds)
        nmea?.shutdown(drainSeconds: drainSeconds)
        events?.shutdown(drainSeconds: drainSeconds)
    }
}
