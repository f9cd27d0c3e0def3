import LocationCore
import NMEA
import Testing
import TestSupport

/// Runs sentences (bodies without `$`/checksum) through framer, parser and assembler.
func assemble(_ bodies: [String], reference: CivilDate? = CivilDate(year: 2024, month: 1, day: 1),
              finish: Bool = true) -> [EpochOutput] {
    var assembler = EpochAssembler(referenceDate: reference)
    let framer = NMEAFramer()
    let parser = NMEAParser()
    var out: [EpochOutput] = []
    for b in bodies {
        framer.feed(Array(NMEAEncoder.sentence(b).utf8)) { f in
            if let p = parser.parse(f) { assembler.add(p) { out.append($0) } }
        }
    }
    if finish { assembler.finish { out.append($0) } }
    return out
}

func fixes(_ outputs: [EpochOutput]) -> [Location] {
    outputs.compactMap { if case .fix(let l) = $0 { l } else { nil } }
}

@Suite("Epoch assembly", .ownThreads)
struct EpochAssemblerTests {
    @Test func mergesOneCycleIntoOneLocation() throws {
        let out = fixes(assemble([
            "GPRMC,123519.50,A,4807.038,N,01131.000,E,022.4,084.4,230324,003.1,W,A",
            "GPGGA,123519.50,4807.038,N,01131.000,E,2,08,0.9,545.4,M,46.9,M,3.0,0120",
            "GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1",
            "GPGST,123519.50,0.5,1.0,0.8,10.0,0.3,0.4,0.9",
        ]))
        #expect(out.count == 1)
        let l = try #require(out.first)
        #expect(l.time == Timestamp(year: 2024, month: 3, day: 23, hour: 12, minute: 35, second: 19, nanosecond: 500_000_000))
        #expect(l.timeFractionDigits == 2)
        #expect(l.mode == .threeD)
        #expect(l.quality == .dgps)
        #expect(l.altitudeMSLMeters == 545.4)
        #expect(abs(try #require(l.altitudeEllipsoidMeters) - 592.3) < 1e-9)
        #expect(abs(try #require(l.speedMetersPerSecond) - 22.4 * 0.514_444_444_444_444_5) < 1e-12)
        #expect(l.courseDegrees == 84.4)
        #expect(l.magneticVariationDegrees == -3.1)
        #expect(abs(try #require(l.magneticCourseDegrees) - 87.5) < 1e-9)
        #expect(l.satellitesUsed == 8)
        #expect(l.hdop == 1.3 && l.pdop == 2.5 && l.vdop == 2.1)
        #expect(abs(try #require(l.horizontalAccuracyMeters) - 0.5) < 1e-12)   // √(0.3² + 0.4²) from GST
        #expect(l.verticalAccuracyMeters == 0.9)
        #expect(l.dgpsAgeSeconds == 3.0 && l.dgpsStation == 120)
    }

    @Test func dopAccuracyUsesTheDocumentedUERE() throws {
        let l = try #require(fixes(assemble(["GPGGA,000001,4807.038,N,01131.000,E,1,08,2.0,545.4,M,46.9,M,,",
                                             "GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,2.0,3.0"])).first)
        #expect(l.horizontalAccuracyMeters == 2.0 * EpochAssembler.Settings.default.horizontalUEREMeters)
        #expect(l.verticalAccuracyMeters == 3.0 * EpochAssembler.Settings.default.verticalUEREMeters)
    }

    /// A cycle of RMC alone (GGA/GSA at a lower rate than RMC, a log cut after RMC) takes its horizontal accuracy from
    /// the last HDOP the receiver sent, for `dopCarrySeconds` (5 s); its own DOP fields stay empty. An older HDOP is
    /// not used.
    @Test func rmcOnlyCyclesTakeTheRecentDOPsAccuracy() throws {
        let out = fixes(assemble([
            "GPGGA,000001,4807.038,N,01131.000,E,1,08,2.0,545.4,M,46.9,M,,",
            "GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,2.0,3.0",
            "GPRMC,000001,A,4807.038,N,01131.000,E,0.0,0.0,010124,,,A",
            "GPRMC,000002,A,4807.038,N,01131.000,E,0.0,0.0,010124,,,A",
            "GPRMC,000006,A,4807.038,N,01131.000,E,0.0,0.0,010124,,,A",
            "GPRMC,000007,A,4807.038,N,01131.000,E,0.0,0.0,010124,,,A",
        ]))
        #expect(out.count == 4)
        let uere = EpochAssembler.Settings.default
        #expect(out.map(\.horizontalAccuracyMeters) == [2.0 * uere.horizontalUEREMeters, 2.0 * uere.horizontalUEREMeters,
                                                        2.0 * uere.horizontalUEREMeters, nil])
        #expect(out[1].verticalAccuracyMeters == nil, "RMC has no altitude, so no vertical accuracy")
        #expect(out[1].hdop == nil && out[1].vdop == nil, "the receiver did not send DOPs in that cycle")
    }

    @Test func invalidStatusGivesNoFixWithoutCoordinates() throws {
        let l = try #require(fixes(assemble(["GPRMC,010203,V,4807.038,N,01131.000,E,,,230324,,"])).first)
        #expect(l.mode == .noFix)
        #expect(l.latitudeDegrees == nil && l.longitudeDegrees == nil)
        #expect(l.time == Timestamp(year: 2024, month: 3, day: 23, hour: 1, minute: 2, second: 3))
    }

    @Test func zeroSatellitesWithQualityOneIsNoFix() throws {
        let l = try #require(fixes(assemble(["GPGGA,194050.00,4221.8237733,N,07101.9411707,W,1,00,3.3,10.835,M,-33.320,M,,"])).first)
        #expect(l.mode == .noFix)
    }

    @Test func dateCarriesAcrossMidnight() throws {
        let out = fixes(assemble([
            "GPRMC,235959,A,4807.038,N,01131.000,E,0,0,311224,,",
            "GPGGA,000000,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
        ]))
        #expect(out.count == 2)
        #expect(out[1].time == Timestamp(year: 2025, month: 1, day: 1))
    }

    @Test func noDateYetMeansNoTimestamp() throws {
        let l = try #require(fixes(assemble(["GPGGA,120000,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"])).first)
        #expect(l.time == nil)
        #expect(l.latitudeDegrees != nil)
    }

    @Test func learnedEndOfCycleEmitsWithoutWaitingForTheNextCycle() {
        var bodies: [String] = []
        for s in 0..<4 {
            bodies.append("GPRMC,12000\(s),A,4807.038,N,01131.000,E,0,0,230324,,")
            bodies.append("GPGGA,12000\(s),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        }
        let out = fixes(assemble(bodies, finish: false))
        // Cycles 0 and 1 end when the next begins; after two cycles ending in GGA, cycles 2 and 3 end on GGA.
        #expect(out.count == 4)
        #expect(out.last?.time == Timestamp(year: 2024, month: 3, day: 23, hour: 12, minute: 0, second: 3))
    }

    @Test func skyViewMarksUsedSatellites() throws {
        let out = assemble([
            "GPGGA,120000,4807.038,N,01131.000,E,1,02,0.9,545.4,M,46.9,M,,",
            "GPGSA,A,3,04,05,,,,,,,,,,,2.5,1.3,2.1",
            "GPGSV,1,1,03,04,40,100,45,05,30,200,40,07,10,300,20",
            "GLGSV,1,1,01,65,50,50,38",
        ])
        let sky = try #require(out.compactMap { if case .sky(let s) = $0 { s } else { nil } }.first)
        #expect(sky.satellites.count == 4)
        #expect(sky.satellites.filter(\.used).map(\.svid) == [4, 5])
        #expect(sky.satellites.last?.constellation == .glonass)
        #expect(sky.satellites.last?.svid == 1)
    }
}

@Suite("Date resolution", .ownThreads)
struct DateResolverTests {
    @Test(arguments: [
        (NMEADate(day: 6, month: 6, year: 1, twoDigitYear: true), CivilDate(year: 2005, month: 3, day: 11), CivilDate(year: 2001, month: 6, day: 6)),
        (NMEADate(day: 1, month: 1, year: 99, twoDigitYear: true), CivilDate(year: 2005, month: 3, day: 11), CivilDate(year: 1999, month: 1, day: 1)),
        (NMEADate(day: 22, month: 8, year: 99, twoDigitYear: true), CivilDate(year: 2019, month: 3, day: 14), CivilDate(year: 2019, month: 4, day: 7)),
        (NMEADate(day: 15, month: 5, year: 2006, twoDigitYear: false), CivilDate(year: 2026, month: 1, day: 10), CivilDate(year: 2025, month: 12, day: 29)),
        (NMEADate(day: 15, month: 5, year: 2010, twoDigitYear: false), CivilDate(year: 2026, month: 1, day: 10), CivilDate(year: 2010, month: 5, day: 15)),
    ])
    func resolves(date: NMEADate, reference: CivilDate, expected: CivilDate) {
        #expect(DateResolver(reference: reference).resolve(date) == expected)
    }

    @Test func invalidDatesAreNil() {
        let r = DateResolver(reference: CivilDate(year: 2024, month: 1, day: 1))
        #expect(r.resolve(NMEADate(day: 30, month: 2, year: 24, twoDigitYear: true)) == nil)
        #expect(r.resolve(NMEADate(day: 1, month: 13, year: 24, twoDigitYear: true)) == nil)
    }
}
