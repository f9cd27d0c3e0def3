import LocationCore

/// Resolves receiver dates against a reference date: two-digit years to the century that puts them within
/// 50 years of the reference, and GPS week-number rollover (a date a multiple of 1024 weeks too early).
///
/// The reference is a capture's `# Date:` header (gpsd's test logs) or `created` line, else the system clock
/// (read by the CLI, never by the core). Rollover is corrected only when adding k × 1024 weeks lands the date
/// within one year of the reference, so an old log replayed without a header is left alone unless it is
/// exactly one rollover period (19.6 years) older than the reference, which is where the two cannot be told apart.
public struct DateResolver: Sendable, Hashable {
    public var reference: CivilDate?
    public static let rolloverDays = 1024 * 7

    public init(reference: CivilDate?) { self.reference = reference }

    public func resolve(_ date: NMEADate) -> CivilDate? { resolveCountingRollovers(date)?.date }

    /// The resolved date and how many 1024-week periods were added to the receiver's date (0: none).
    public func resolveCountingRollovers(_ date: NMEADate) -> (date: CivilDate, rollovers: Int)? {
        var year = date.year
        if date.twoDigitYear {
            let refYear = reference?.year ?? 2000
            let century = (refYear / 100) * 100
            year = century + date.year
            if year > refYear + 50 { year -= 100 } else if year <= refYear - 50 { year += 100 }
        }
        guard (1980...2200).contains(year), (1...12).contains(date.month),
              (1...CivilDate.daysIn(month: date.month, year: year)).contains(date.day) else { return nil }
        let given = CivilDate(year: year, month: date.month, day: date.day)
        let corrected = correctRollover(given)
        return (corrected, (corrected.daysSince1970 - given.daysSince1970) / Self.rolloverDays)
    }

    public func correctRollover(_ date: CivilDate) -> CivilDate {
        guard let reference else { return date }
        let ref = reference.daysSince1970
        var days = date.daysSince1970
        guard days < ref - 366 else { return date }
        while days < ref - 366 { days += Self.rolloverDays }
        return days <= ref + 366 ? CivilDate(daysSince1970: days) : date
    }
}
