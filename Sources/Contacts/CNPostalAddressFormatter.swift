#if !canImport(Darwin)
import Foundation

public enum CNPostalAddressFormatterStyle: Int, Sendable {
    case mailingAddress = 0
}

/// Formats a CNPostalAddress as lines of a mailing address, in the country's order (US-style "City State ZIP" as Apple prints it for
/// the US and elsewhere by default; "ZIP City" for most of Europe; Japan and China from the largest unit down; otherwise one field a line).
/// Empty fields are left out, never printed as blank lines.
open class CNPostalAddressFormatter: Formatter, @unchecked Sendable {
    open var style: CNPostalAddressFormatterStyle = .mailingAddress

    public override init() { super.init() }
    public required init?(coder: NSCoder) { super.init(coder: coder) }

    open class func string(from postalAddress: CNPostalAddress, style: CNPostalAddressFormatterStyle) -> String {
        lines(postalAddress).joined(separator: "\n")
    }

    open func string(from postalAddress: CNPostalAddress) -> String {
        Self.string(from: postalAddress, style: style)
    }

    open override func string(for obj: Any?) -> String? {
        (obj as? CNPostalAddress).map { string(from: $0) }
    }

    static func lines(_ a: CNPostalAddress) -> [String] {
        func join(_ parts: [String], _ separator: String = " ") -> String {
            parts.filter { !$0.isEmpty }.joined(separator: separator)
        }
        let code = a.isoCountryCode.uppercased()
        var out: [String] = []
        switch code {
        case "JP", "CN", "KR", "TW":
            out = [a.country, join([a.postalCode, a.state]), join([a.city, a.subLocality]), a.street]
        case "DE", "FR", "IT", "ES", "NL", "BE", "CH", "AT", "SE", "NO", "DK", "FI", "PL", "PT", "CZ":
            out = [a.street, a.subLocality, join([a.postalCode, a.city]), a.state, a.country]
        case "GB", "IE":
            out = [a.street, a.subLocality, a.city, a.subAdministrativeArea, a.postalCode, a.country]
        default:
            out = [a.street, a.subLocality, join([a.city, a.state, a.postalCode]), a.country]
        }
        return out.filter { !$0.isEmpty }
    }
}
#endif
