#if !canImport(Darwin)
@_exported import Foundation

/// A postal address (Contacts' CNPostalAddress): immutable; CNMutablePostalAddress to build one.
open class CNPostalAddress: NSObject, NSCopying, NSMutableCopying, NSSecureCoding, @unchecked Sendable {
    public static var supportsSecureCoding: Bool { true }

    open internal(set) var street: String = ""
    open internal(set) var subLocality: String = ""
    open internal(set) var city: String = ""
    open internal(set) var subAdministrativeArea: String = ""
    open internal(set) var state: String = ""
    open internal(set) var postalCode: String = ""
    open internal(set) var country: String = ""
    open internal(set) var isoCountryCode: String = ""

    public override init() { super.init() }

    static let keys = ["street", "subLocality", "city", "subAdministrativeArea", "state", "postalCode", "country",
                       "isoCountryCode"]

    var values: [String] { [street, subLocality, city, subAdministrativeArea, state, postalCode, country, isoCountryCode] }

    func assign(_ v: [String]) {
        street = v[0]; subLocality = v[1]; city = v[2]; subAdministrativeArea = v[3]
        state = v[4]; postalCode = v[5]; country = v[6]; isoCountryCode = v[7]
    }

    public required init?(coder: NSCoder) {
        super.init()
        assign(Self.keys.map { (coder.decodeObject(forKey: $0) as? String) ?? "" })
    }

    open func encode(with coder: NSCoder) {
        for (k, v) in zip(Self.keys, values) { coder.encode(v, forKey: k) }
    }

    open func copy(with zone: NSZone? = nil) -> Any {
        let c = CNPostalAddress()
        c.assign(values)
        return c
    }

    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        let c = CNMutablePostalAddress()
        c.assign(values)
        return c
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let o = object as? CNPostalAddress else { return false }
        return o.values == values
    }

    open override var hash: Int { values.hashValue }

    open override var description: String { CNPostalAddressFormatter.string(from: self, style: .mailingAddress) }

    /// The localized name of a property key (`CNPostalAddressStreetKey` …).
    open class func localizedString(forKey key: String) -> String {
        switch key {
        case CNPostalAddressStreetKey: "Street"
        case CNPostalAddressSubLocalityKey: "Neighborhood"
        case CNPostalAddressCityKey: "City"
        case CNPostalAddressSubAdministrativeAreaKey: "County"
        case CNPostalAddressStateKey: "State"
        case CNPostalAddressPostalCodeKey: "ZIP"
        case CNPostalAddressCountryKey: "Country"
        case CNPostalAddressISOCountryCodeKey: "Country Code"
        default: key
        }
    }
}

/// A postal address you can change.
open class CNMutablePostalAddress: CNPostalAddress, @unchecked Sendable {
    open override var street: String { get { super.street } set { super.street = newValue } }
    open override var subLocality: String { get { super.subLocality } set { super.subLocality = newValue } }
    open override var city: String { get { super.city } set { super.city = newValue } }
    open override var subAdministrativeArea: String {
        get { super.subAdministrativeArea } set { super.subAdministrativeArea = newValue }
    }
    open override var state: String { get { super.state } set { super.state = newValue } }
    open override var postalCode: String { get { super.postalCode } set { super.postalCode = newValue } }
    open override var country: String { get { super.country } set { super.country = newValue } }
    open override var isoCountryCode: String { get { super.isoCountryCode } set { super.isoCountryCode = newValue } }
}

public let CNPostalAddressStreetKey = "street"
public let CNPostalAddressSubLocalityKey = "subLocality"
public let CNPostalAddressCityKey = "city"
public let CNPostalAddressSubAdministrativeAreaKey = "subAdministrativeArea"
public let CNPostalAddressStateKey = "state"
public let CNPostalAddressPostalCodeKey = "postalCode"
public let CNPostalAddressCountryKey = "country"
public let CNPostalAddressISOCountryCodeKey = "ISOCountryCode"
#endif
