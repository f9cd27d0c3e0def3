import LocationCore

extension UBXEpochAssembler {
    /// What `add(frame:)` made of a frame.
    public enum FrameOutcome: Sendable, Hashable {
        case decoded, unknown, malformed
        /// An empty payload: a host's poll or command recorded in the log (u-center logs carry them), not output.
        case poll
    }

    /// Decodes one frame straight into the epoch in progress: the frequent navigation messages are decoded into the
    /// epoch's storage without passing through `UBXDecoded` (a large value copied at every step: 20 % of a UBX
    /// replay in `memmove`, and still 5 % for NAV-SOL, NAV-TIMEGPS, NAV-EOE and the messages not decoded); messages
    /// not decoded are rejected by class and id; everything else goes through `UBXDecoded` and `add(_:_:)`. Same
    /// results as `add(UBXDecoded.decode(frame))` (UBXFramedPathTests, and the `ubx` fuzz harness).
    public mutating func add(frame f: UBXFrame, receiveTime: Timestamp? = nil, _ emit: (Output) -> Void) -> FrameOutcome {
        messageReceiveTime = receiveTime
        let p = f.payload
        if p.isEmpty { return .poll }
        switch (f.classID, f.messageID) {
        case (0x01, 0x07), (0x01, 0x17):
            guard let m = f.messageID == 0x07 ? NavPVT(payload: p) : NavPVT(attitudePayload: p) else { return .malformed }
            beginNavigation(m.iTOWMilliseconds, emit)
            epoch.pvt = m
            sawNavigationSolution = true
        case (0x01, 0x04):
            guard let m = NavDOP(payload: p) else { return .malformed }
            beginNavigation(m.iTOWMilliseconds, emit)
            epoch.dop = m
        case (0x01, 0x02):
            guard let m = NavPOSLLH(payload: p) else { return .malformed }
            beginNavigation(m.iTOWMilliseconds, emit)
            epoch.posllh = m
            sawNavigationSolution = true
        case (0x01, 0x12):
            guard let m = NavVELNED(payload: p) else { return .malformed }
            beginNavigation(m.iTOWMilliseconds, emit)
            epoch.velned = m
        case (0x01, 0x14):
            guard let m = NavHPPOSLLH(payload: p) else { return .malformed }
            beginNavigation(m.iTOWMilliseconds, emit)
            epoch.hpposllh = m
            sawNavigationSolution = true
        case (0x01, 0x35):
            guard let m = NavSAT(payload: p) else { return .malformed }
            beginNavigation(m.iTOWMilliseconds, emit)
            epoch.sat = m
            sawSky = true
            return .decoded
        case (0x01, 0x01), (0x01, 0x13):
            // NAV-POSECEF / NAV-HPPOSECEF (here rather than through `UBXDecoded`: its enum is copied whole).
            guard let m = f.messageID == 0x01 ? NavPOSECEF(payload: p) : NavPOSECEF(highPrecisionPayload: p) else {
                return .malformed
            }
            beginNavigation(m.iTOWMilliseconds, emit)
            epoch.posecef = m
            sawNavigationSolution = true
        case (0x01, 0x11):
            guard let m = NavVELECEF(payload: p) else { return .malformed }
            beginNavigation(m.iTOWMilliseconds, emit)
            epoch.velecef = m
        case (0x01, 0x21):
            guard let m = NavTIMEUTC(payload: p) else { return .malformed }
            beginNavigation(m.iTOWMilliseconds, emit)
            epoch.timeutc = m
            return .decoded
        case (0x01, 0x06):
            guard let m = NavSOL(payload: p) else { return .malformed }
            beginNavigation(m.iTOWMilliseconds, emit)
            setSolution(m)
        case (0x01, 0x20):
            guard let m = NavTIMEGPS(payload: p) else { return .malformed }
            beginNavigation(m.iTOWMilliseconds, emit)
            setTimeGPS(m)
        case (0x01, 0x61):
            guard p.count == 4 else { return .malformed }
            endOfEpoch(LittleEndian(p).u4(0), emit)
        default:
            // The raw-measurement and other messages not decoded (RXM-RAWX, RXM-SFRBX, NAV-CLOCK, NAV-SIG … half the
            // frames of gpsd's u-blox logs) are told apart before `UBXDecoded.decode`, whose outcome is copied whole.
            guard UBXDecoded.decodes(classID: f.classID, messageID: f.messageID) else { return .unknown }
            switch UBXDecoded.decode(f) {
            case .decoded(let m): add(m, emit); return .decoded
            case .unknown: return .unknown
            case .malformed: return .malformed
            }
        }
        return .decoded
    }
}
