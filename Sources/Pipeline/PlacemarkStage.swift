import LocationCore

/// The placemark stage (`--placemark`): attaches a placemark to each output fix with a position; the provider
/// (an offline geocoder behind a `PlacemarkTracker`) decides when to recompute. `snapshot` counts what it did.
public final class PlacemarkStage {
    public struct Settings: Sendable {
        public var provider: (@Sendable (Location) -> PlacemarkSummary?)?
        public init(provider: (@Sendable (Location) -> PlacemarkSummary?)? = nil) { self.provider = provider }
    }

    public struct Snapshot: Sendable {
        public var enabled: Bool
        public var fixesAnnotated: Int
        public var lastPlacemark: PlacemarkSummary?
    }

    public let settings: Settings
    private var fixesAnnotated = 0
    private var lastPlacemark: PlacemarkSummary?

    public init(settings: Settings) { self.settings = settings }

    public var enabled: Bool { settings.provider != nil }

    public func annotate(_ l: inout Location) {
        guard let provider = settings.provider, l.latitudeDegrees != nil else { return }
        l.placemark = provider(l)
        fixesAnnotated += 1
        if let p = l.placemark { lastPlacemark = p }
    }

    public var snapshot: Snapshot {
        Snapshot(enabled: enabled, fixesAnnotated: fixesAnnotated, lastPlacemark: lastPlacemark)
    }
}
