/// A decoded UBX message of the kinds this module understands.
public enum UBXDecoded: Sendable, Hashable {
    case navPVT(NavPVT)
    case navPOSLLH(NavPOSLLH)
    case navHPPOSLLH(NavHPPOSLLH)
    case navSOL(NavSOL)
    case navVELNED(NavVELNED)
    /// NAV-POSECEF or NAV-HPPOSECEF.
    case navPOSECEF(NavPOSECEF)
    case navVELECEF(NavVELECEF)
    case navDOP(NavDOP)
    case navSTATUS(NavSTATUS)
    case navTIMEGPS(NavTIMEGPS)
    case navTIMEUTC(NavTIMEUTC)
    case navRELPOSNED(NavRELPOSNED)
    case navATT(NavATT)
    /// UBX-NAV-EOE (0x01 0x61, F9+): end of the navigation epoch with this iTOW. 4 bytes.
    case navEOE(iTOWMilliseconds: UInt32)
    case navSAT(NavSAT)
    case navSVINFO(NavSVINFO)
    case monVER(MonVER)
    case monHW(MonHW)
    case monRF(MonRF)
    case timTP(TimTP)
    case hnrPVT(HnrPVT)

    public enum Outcome: Sendable, Hashable {
        case decoded(UBXDecoded)
        /// A message this module does not decode.
        case unknown
        /// A known message whose payload length (or version) the interface description does not allow.
        case malformed
    }

    /// Decodes one payload by class and id; never traps.
    public static func decode(classID: UInt8, messageID: UInt8, payload p: UnsafeBufferPointer<UInt8>) -> Outcome {
        func wrap<T>(_ value: T?, _ make: (T) -> UBXDecoded) -> Outcome { value.map { .decoded(make($0)) } ?? .malformed }
        switch (classID, messageID) {
        case (0x01, 0x07): return wrap(NavPVT(payload: p), UBXDecoded.navPVT)
        case (0x01, 0x17): return wrap(NavPVT(attitudePayload: p), UBXDecoded.navPVT)
        case (0x01, 0x02): return wrap(NavPOSLLH(payload: p), UBXDecoded.navPOSLLH)
        case (0x01, 0x14): return wrap(NavHPPOSLLH(payload: p), UBXDecoded.navHPPOSLLH)
        case (0x01, 0x06): return wrap(NavSOL(payload: p), UBXDecoded.navSOL)
        case (0x01, 0x12): return wrap(NavVELNED(payload: p), UBXDecoded.navVELNED)
        case (0x01, 0x01): return wrap(NavPOSECEF(payload: p), UBXDecoded.navPOSECEF)
        case (0x01, 0x13): return wrap(NavPOSECEF(highPrecisionPayload: p), UBXDecoded.navPOSECEF)
        case (0x01, 0x11): return wrap(NavVELECEF(payload: p), UBXDecoded.navVELECEF)
        case (0x01, 0x04): return wrap(NavDOP(payload: p), UBXDecoded.navDOP)
        case (0x01, 0x03): return wrap(NavSTATUS(payload: p), UBXDecoded.navSTATUS)
        case (0x01, 0x20): return wrap(NavTIMEGPS(payload: p), UBXDecoded.navTIMEGPS)
        case (0x01, 0x21): return wrap(NavTIMEUTC(payload: p), UBXDecoded.navTIMEUTC)
        case (0x01, 0x3C): return wrap(NavRELPOSNED(payload: p), UBXDecoded.navRELPOSNED)
        case (0x01, 0x05): return wrap(NavATT(payload: p), UBXDecoded.navATT)
        case (0x01, 0x61):
            guard p.count == 4 else { return .malformed }
            return .decoded(.navEOE(iTOWMilliseconds: LittleEndian(p).u4(0)))
        case (0x01, 0x35): return wrap(NavSAT(payload: p), UBXDecoded.navSAT)
        case (0x01, 0x30): return wrap(NavSVINFO(payload: p), UBXDecoded.navSVINFO)
        case (0x0A, 0x04): return wrap(MonVER(payload: p), UBXDecoded.monVER)
        case (0x0A, 0x09): return wrap(MonHW(payload: p), UBXDecoded.monHW)
        case (0x0A, 0x38): return wrap(MonRF(payload: p), UBXDecoded.monRF)
        case (0x0D, 0x01): return wrap(TimTP(payload: p), UBXDecoded.timTP)
        case (0x28, 0x00): return wrap(HnrPVT(payload: p), UBXDecoded.hnrPVT)
        default: return .unknown
        }
    }

    /// Whether `decode` knows this class and id (its outcome is then `.decoded` or `.malformed`, else `.unknown`).
    public static func decodes(classID: UInt8, messageID: UInt8) -> Bool {
        switch (classID, messageID) {
        case (0x01, 0x07), (0x01, 0x17), (0x01, 0x02), (0x01, 0x14), (0x01, 0x06), (0x01, 0x12), (0x01, 0x01),
             (0x01, 0x13), (0x01, 0x11), (0x01, 0x05), (0x01, 0x04), (0x01, 0x03), (0x01, 0x20), (0x01, 0x21),
             (0x01, 0x3C), (0x01, 0x61), (0x01, 0x35), (0x01, 0x30), (0x0A, 0x04), (0x0A, 0x09), (0x0A, 0x38),
             (0x0D, 0x01), (0x28, 0x00):
            true
        default: false
        }
    }

    public static func decode(_ frame: UBXFrame) -> Outcome {
        decode(classID: frame.classID, messageID: frame.messageID, payload: frame.payload)
    }

    /// The navigation epoch the message belongs to (nil for messages outside epochs: MON, TIM).
    public var iTOWMilliseconds: UInt32? {
        switch self {
        case .navPVT(let m): m.iTOWMilliseconds
        case .navPOSLLH(let m): m.iTOWMilliseconds
        case .navHPPOSLLH(let m): m.iTOWMilliseconds
        case .navSOL(let m): m.iTOWMilliseconds
        case .navVELNED(let m): m.iTOWMilliseconds
        case .navPOSECEF(let m): m.iTOWMilliseconds
        case .navVELECEF(let m): m.iTOWMilliseconds
        case .navDOP(let m): m.iTOWMilliseconds
        case .navSTATUS(let m): m.iTOWMilliseconds
        case .navTIMEGPS(let m): m.iTOWMilliseconds
        case .navTIMEUTC(let m): m.iTOWMilliseconds
        case .navRELPOSNED(let m): m.iTOWMilliseconds
        case .navATT(let m): m.iTOWMilliseconds
        case .navEOE(let t): t
        case .navSAT(let m): m.iTOWMilliseconds
        case .navSVINFO(let m): m.iTOWMilliseconds
        case .hnrPVT(let m): m.iTOWMilliseconds
        case .monVER, .monHW, .monRF, .timTP: nil
        }
    }
}
