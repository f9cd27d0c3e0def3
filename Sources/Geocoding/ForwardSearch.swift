#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

extension Geocoder {
    static let alternateNamePenalty = 2.0
    static let nationalCapitalBonus = 2.5
    static let admin1SeatBonus = 0.7
    /// Inside a region hint (outside: scaled by radius/distance); above a national capital's weight, so a hint wins.
    static let regionHintBonus = 5.0
    var capitals: Capitals { Capitals.embedded }

    /// Places matching a place name or address-like string, best first (at most `limit`).
    ///
    /// The text is folded (case and Latin diacritics, see `Folding`); a comma separates the name from qualifiers
    /// ("Paris, TX", "Springfield, Illinois, US"); without commas the last one or two words may be a qualifier
    /// ("san francisco ca"). A qualifier matches a country code or name or an admin1 code or name of the place
    /// (or its admin2 name). Score = log10(population + 10) + 2 per matched qualifier − 2 for an alternate name
    /// (an exact primary name beats an alternate name of a place up to 100 times larger) + 2.5 for a national capital,
    /// + 0.7 for an admin1 seat (half of these when matched by an alternate name), + a region-hint bonus of 5 inside the hint radius, 5·radius/distance outside it.
    /// "City of X" (and "X City" when no place has that name) is also searched as "X". Confidence is the softmax of
    /// the scores over the returned results.
    public func geocode(_ text: String, regionHint: CircularRegion? = nil, limit: Int = 10) -> [Placemark] {
        let folded = Folding.fold(text)
        guard !folded.isEmpty, limit > 0 else { return [] }
        var parses: [(name: String, qualifiers: [String])] = []
        if text.contains(",") {
            let parts = text.split(separator: ",").map { Folding.fold(String($0)) }.filter { !$0.isEmpty }
            if let first = parts.first { parses.append((first, Array(parts.dropFirst()))) }
        }
        parses.append((folded, []))
        // "City of San Marino", "the city of Victoria": the city's own name.
        for prefix in ["the city of ", "city of "] where folded.hasPrefix(prefix) && folded.count > prefix.count {
            parses.append((String(folded.dropFirst(prefix.count)), []))
            break
        }
        let words = folded.split(separator: " ")
        if words.count >= 2 {
            for k in 1...Swift.min(2, words.count - 1) {
                parses.append((words.dropLast(k).joined(separator: " "), [words.suffix(k).joined(separator: " ")]))
            }
        }
        var best: [Int: Double] = [:]
        for parse in parses {
            let matches = lookup(parse.name)
            for (place, kind) in matches {
                var score = log10(Double(db.population[place]) + 10)
                if kind == 2 { score -= Self.alternateNamePenalty }
                // Capitals weigh fully when their own name was given, half by an alternate name ("Victoria" is an
                // alternate name of Hong Kong; "Panama City" of Panamá).
                let share = kind == 2 ? 0.5 : 1
                switch capitals.rank(db.geonameID[place]) {
                case .national: score += Self.nationalCapitalBonus * share
                case .admin1Seat: score += Self.admin1SeatBonus * share
                case .none: break
                }
                var ok = true
                for q in parse.qualifiers {
                    if qualifierMatches(q, place: place) { score += 2 } else { ok = false; break }
                }
                guard ok else { continue }
                if let hint = regionHint {
                    let d = Geo.distanceMeters(hint.centerLatitudeDegrees, hint.centerLongitudeDegrees,
                                           db.latitude(place), db.longitude(place))
                    let r = Swift.max(hint.radiusMeters, 1)
                    score += d <= r ? Self.regionHintBonus : Self.regionHintBonus * r / d
                }
                if score > best[place] ?? -.infinity { best[place] = score }
            }
            // A parse with qualifiers that matched is preferred over looser parses.
            if !parse.qualifiers.isEmpty && !best.isEmpty { break }
        }
        if best.isEmpty, folded.hasSuffix(" city"), folded.count > 5 {
            // "Panama City" is a GeoNames name itself; "Guatemala City" is not: try the name without "city".
            return geocode(String(folded.dropLast(5)), regionHint: regionHint, limit: limit)
        }
        let ranked = best.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(limit)
        guard let top = ranked.first?.value else { return [] }
        let total = ranked.reduce(0.0) { $0 + exp($1.value - top) }
        return ranked.map { place, score in
            var pm = placemark(for: place)
            pm.confidence = exp(score - top) / total
            return pm
        }
    }

    func placemark(for i: Int) -> Placemark {
        var pm = Placemark()
        pm.name = db.name(i)
        if db.isSection[i] != 0 { pm.subLocality = pm.name } else { pm.locality = pm.name }
        let c = Int(db.countryRef[i])
        pm.isoCountryCode = db.countries[c].code
        pm.country = db.countries[c].name
        if db.admin1Ref[i] != StringTable.none {
            let a = db.admin1[Int(db.admin1Ref[i])]
            pm.administrativeArea = a.name
            pm.administrativeAreaCode = a.code
        }
        if db.admin2Ref[i] != StringTable.none { pm.subAdministrativeArea = db.admin2[Int(db.admin2Ref[i])].name }
        if db.timeZoneRef[i] != 0xFFFF { pm.timeZone = db.timeZones[Int(db.timeZoneRef[i])] }
        var loc = Location()
        loc.latitudeDegrees = db.latitude(i)
        loc.longitudeDegrees = db.longitude(i)
        pm.location = loc
        pm.geonameID = Int(db.geonameID[i])
        return pm
    }

    /// All (place, kind) entries whose folded key equals `key` (binary search over the sorted keys).
    func lookup(_ key: String) -> [(Int, UInt8)] {
        var key = key
        return key.withUTF8 { q -> [(Int, UInt8)] in
            let query = UnsafeRawBufferPointer(q)
            var lo = 0, hi = db.keyCount
            while lo < hi {
                let mid = (lo + hi) >> 1
                if compare(db.strings.bytes(db.keyRef[mid]), query) < 0 { lo = mid + 1 } else { hi = mid }
            }
            var out: [(Int, UInt8)] = []
            var i = lo
            while i < db.keyCount, compare(db.strings.bytes(db.keyRef[i]), query) == 0 {
                out.append((Int(db.keyPlace[i]), db.keyKind[i]))
                i += 1
            }
            return out
        }
    }

    func qualifierMatches(_ q: String, place: Int) -> Bool {
        let c = Int(db.countryRef[place])
        let country = db.countries[c]
        if q == Folding.fold(country.code) || q == Folding.fold(country.name) { return true }
        if let aliases = Self.countryAliases[q], aliases.contains(country.code) { return true }
        if db.admin1Ref[place] != StringTable.none {
            let a = db.admin1[Int(db.admin1Ref[place])]
            if q == Folding.fold(a.code) { return true }
            if let n = a.name, q == Folding.fold(n) { return true }
            // "Bayern" vs "Bavaria", "Île-de-France" vs "ile de france": also accept a prefix of 4+ letters.
            if let n = a.name, q.count >= 4, Folding.fold(n).hasPrefix(q) { return true }
        }
        if db.admin2Ref[place] != StringTable.none, let n = db.admin2[Int(db.admin2Ref[place])].name,
           q == Folding.fold(n) { return true }
        return false
    }

    static let countryAliases: [String: Set<String>] = [
        "usa": ["US"], "united states of america": ["US"], "america": ["US"],
        "uk": ["GB"], "great britain": ["GB"], "britain": ["GB"], "england": ["GB"], "scotland": ["GB"], "wales": ["GB"],
        "northern ireland": ["GB"], "deutschland": ["DE"], "holland": ["NL"], "espana": ["ES"], "italia": ["IT"],
        "schweiz": ["CH"], "suisse": ["CH"], "osterreich": ["AT"], "nippon": ["JP"], "uae": ["AE"],
    ]
}

func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let n = Swift.min(a.count, b.count)
    if n > 0, let pa = a.baseAddress, let pb = b.baseAddress {
        let r = memcmp(pa, pb, n)
        if r != 0 { return Int(r) }
    }
    return a.count - b.count
}

