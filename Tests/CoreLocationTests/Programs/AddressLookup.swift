// Shape: reverse and forward geocoding, with the address formatted by Contacts.
import Contacts
import CoreLocation

struct AddressLookup {
    let geocoder = CLGeocoder()

    func address(at location: CLLocation, completion: @escaping (String?) -> Void) {
        geocoder.reverseGeocodeLocation(location) { placemarks, error in
            guard error == nil, let placemark = placemarks?.first else {
                completion(nil)
                return
            }
            if let postal = placemark.postalAddress {
                completion(CNPostalAddressFormatter.string(from: postal, style: .mailingAddress))
            } else {
                completion(placemark.name)
            }
        }
    }

    func coordinate(of address: String) async throws -> CLLocationCoordinate2D? {
        let placemarks = try await geocoder.geocodeAddressString(address)
        return placemarks.first?.location?.coordinate
    }

    func placemark(at location: CLLocation) async throws -> CLPlacemark? {
        try await geocoder.reverseGeocodeLocation(location, preferredLocale: Locale(identifier: "en_US")).first
    }

    static func label(_ placemark: CLPlacemark) -> String {
        let formatter = CNPostalAddressFormatter()
        if let address = placemark.postalAddress { return formatter.string(from: address) }
        return [placemark.locality, placemark.administrativeArea, placemark.country].compactMap { $0 }.joined(separator: ", ")
    }
}
