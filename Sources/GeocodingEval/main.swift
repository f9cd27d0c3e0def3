// Geocoding quality report for `make eval`: reverse-geocodes GeoNames places that are not in the bundled index
// (scripts/geodata/evalset.py: cities500 minus cities1000) and compares country, admin1 code and time zone.
// Usage: GeocodingEval EVAL.csv
#if canImport(Glibc)
import Glibc
#endif
import Geocoding

let args = CommandLine.arguments
guard args.count == 2, let file = fopen(args[1], "r") else {
    print("usage: GeocodingEval EVAL.csv (from scripts/geodata/evalset.py)"); exit(64)
}
let geocoder: Geocoder
do { geocoder = try Geocoder.shared() } catch { print("geodata unreadable: \(error)"); exit(65) }

var total = 0, countryOK = 0, countryNil = 0, admin1Total = 0, admin1OK = 0, tzTotal = 0, tzOK = 0, bad = 0
var countryConfusion: [String: Int] = [:], tzConfusion: [String: Int] = [:], admin1ByCountry: [String: Int] = [:]
var lineNo = 0
var buf = [CChar](repeating: 0, count: 4096)
while fgets(&buf, Int32(buf.count), file) != nil {
    lineNo += 1
    let line = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    if lineNo == 1 { continue }
    let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    guard f.count >= 5, let lat = Double(f[0]), let lon = Double(f[1]), let pm = geocoder.reverse(latitude: lat, longitude: lon)
    else { bad += 1; continue }
    total += 1
    let cc = f[2], a1 = f[3], tz = f[4]
    if pm.isoCountryCode == cc { countryOK += 1 } else {
        if pm.isoCountryCode == nil { countryNil += 1 }
        countryConfusion["\(cc)→\(pm.isoCountryCode ?? "nil")", default: 0] += 1
    }
    if !a1.isEmpty && a1 != "00" {
        admin1Total += 1
        if pm.administrativeAreaCode == a1 && pm.isoCountryCode == cc { admin1OK += 1 } else { admin1ByCountry[cc, default: 0] += 1 }
    }
    if !tz.isEmpty {
        tzTotal += 1
        if pm.timeZone == tz { tzOK += 1 } else { tzConfusion["\(tz)→\(pm.timeZone ?? "nil")", default: 0] += 1 }
    }
}
func pct(_ a: Int, _ b: Int) -> String { b == 0 ? "n/a" : String(Double(Int(Double(a) / Double(b) * 10000)) / 100) + " %" }
func top(_ d: [String: Int], _ n: Int = 8) -> String {
    d.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(n).map { "\($0.key) \($0.value)" }
        .joined(separator: ", ")
}
print("geocoding evaluation: \(total) GeoNames places not in the index (cities500 minus cities1000), \(bad) unreadable rows")
print("country:  \(pct(countryOK, total)) (target >= 99.5 %); failures \(total - countryOK): no country (offshore after simplification) \(countryNil), wrong country \(total - countryOK - countryNil)")
print("          top confusions: \(top(countryConfusion))")
print("admin1:   \(pct(admin1OK, admin1Total)) of \(admin1Total) with an admin1 code (target >= 85 %); most failures in: \(top(admin1ByCountry))")
print("timeZone: \(pct(tzOK, tzTotal)) of \(tzTotal) (target >= 98 %); top confusions: \(top(tzConfusion))")
