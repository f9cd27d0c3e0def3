import LocationCore
import NMEA
import Testing
import TestSupport

func parse(_ text: String) -> ParsedSentence? { NMEAParser().parse(text: text) }

@Suite("NMEA sentences: literal expected values", .ownThreads)
struct ParserTests {
    @Test func gga() throws {
        let p = try #require(parse("$GPGGA,123519.25,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47"))
        #expect(p.talker == Talker("GP"))
        guard case .gga(let g) = p.sentence else { Issue.record("not GGA"); return }
        #expect(g.time == NMEATime(hour: 12, minute: 35, second: 19, nanosecond: 250_000_000, fractionDigits: 2))
        #expect(abs(try #require(g.latitudeDegrees) - 48.1173) < 1e-12)
        #expect(abs(try #require(g.longitudeDegrees) - 11.516_666_666_666_667) < 1e-12)
        #expect(g.qualityIndicator == 1)
        #expect(g.quality == .gps)
        #expect(g.satellitesUsed == 8)
        #expect(g.hdop == 0.9)
        #expect(g.altitudeMSLMeters == 545.4)
        #expect(g.geoidSeparationMeters == 46.9)
        #expect(g.dgpsAgeSeconds == nil)
        #expect(g.dgpsStation == nil)
    }

    @Test func emptyFieldsAreNilNeverZero() throws {
        let p = try #require(parse("$GNGGA,,,,,,0,,,,,,,,*00"))
        guard case .gga(let g) = p.sentence else { Issue.record("not GGA"); return }
        #expect(g.time == nil && g.latitudeDegrees == nil && g.longitudeDegrees == nil)
        #expect(g.satellitesUsed == nil && g.hdop == nil && g.altitudeMSLMeters == nil)
        #expect(g.qualityIndicator == 0)
    }

    @Test func rmc() throws {
        let p = try #require(parse("$GNRMC,225446.33,A,4916.45,N,12311.12,W,000.5,054.7,191194,020.3,E,D,V*68"))
        guard case .rmc(let r) = p.sentence else { Issue.record("not RMC"); return }
        #expect(r.valid == true)
        #expect(abs(try #require(r.latitudeDegrees) - 49.274_166_666_666_67) < 1e-12)
        #expect(abs(try #require(r.longitudeDegrees) + 123.185_333_333_333_33) < 1e-12)
        #expect(r.speedKnots == 0.5)
        #expect(r.courseTrueDegrees == 54.7)
        #expect(r.date == NMEADate(day: 19, month: 11, year: 94, twoDigitYear: true))
        #expect(r.magneticVariationDegrees == 20.3)
        #expect(r.mode == .differential)
        #expect(r.navigationalStatus == UInt8(ascii: "V"))
        let west = try #require(parse("$GPRMC,225446,A,4916.45,N,12311.12,W,0.5,54.7,191194,020.3,W*00"))
        guard case .rmc(let w) = west.sentence else { Issue.record("not RMC"); return }
        #expect(w.magneticVariationDegrees == -20.3)
        #expect(w.mode == nil)
    }

    @Test func gsaStandardAndNMEA411() throws {
        let p = try #require(parse("$GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1*39"))
        guard case .gsa(let g) = p.sentence else { Issue.record("not GSA"); return }
        #expect(g.selectionMode == UInt8(ascii: "A"))
        #expect(g.fixType == 3)
        #expect(Array(g.satelliteIDs) == [4, 5, 9, 12, 24])
        #expect(g.pdop == 2.5 && g.hdop == 1.3 && g.vdop == 2.1)
        #expect(g.systemID == nil)
        let q = try #require(parse("$GNGSA,A,3,65,67,80,81,82,88,66,,,,,,1.2,0.7,1.0,2*3A"))
        guard case .gsa(let h) = q.sentence else { Issue.record("not GSA"); return }
        #expect(h.systemID == 2)
        #expect(h.satelliteIDs.count == 7)
    }

    @Test func gsvWithAndWithoutSignalID() throws {
        let p = try #require(parse("$GPGSV,3,1,11,03,03,111,00,04,15,270,00,06,01,010,00,13,06,292,00*74"))
        guard case .gsv(let g) = p.sentence else { Issue.record("not GSV"); return }
        #expect(g.totalMessages == 3 && g.messageNumber == 1 && g.satellitesInView == 11)
        #expect(g.satellites.count == 4)
        #expect(g.satellites[0] == GSVSatellite(id: 3, elevationDegrees: 3, azimuthDegrees: 111, snrDBHz: 0))
        #expect(g.signalID == nil)
        let s = try #require(parse("$GAGSV,1,1,02,10,45,120,38,12,,,30,7*00"))
        guard case .gsv(let h) = s.sentence else { Issue.record("not GSV"); return }
        #expect(h.signalID == 7)
        #expect(h.satellites[1] == GSVSatellite(id: 12, elevationDegrees: nil, azimuthDegrees: nil, snrDBHz: 30))
    }

    @Test func vtgModernAndNMEA1() throws {
        let p = try #require(parse("$GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A*00"))
        guard case .vtg(let v) = p.sentence else { Issue.record("not VTG"); return }
        #expect(v.courseTrueDegrees == 54.7 && v.courseMagneticDegrees == 34.4)
        #expect(v.speedKnots == 5.5 && v.speedKilometersPerHour == 10.2 && v.mode == .autonomous)
        let old = try #require(parse("$GPVTG,054.7,034.4,005.5,010.2*00"))
        guard case .vtg(let o) = old.sentence else { Issue.record("not VTG"); return }
        #expect(o.courseTrueDegrees == 54.7 && o.courseMagneticDegrees == 34.4 && o.speedKnots == 5.5)
    }

    @Test func gll() throws {
        let p = try #require(parse("$GPGLL,4916.45,N,12311.12,W,225444,A,A*00"))
        guard case .gll(let g) = p.sentence else { Issue.record("not GLL"); return }
        #expect(abs(try #require(g.latitudeDegrees) - 49.274_166_666_666_67) < 1e-12)
        #expect(g.time == NMEATime(hour: 22, minute: 54, second: 44))
        #expect(g.valid == true && g.mode == .autonomous)
    }

    @Test func zda() throws {
        let p = try #require(parse("$GPZDA,201530.00,04,07,2002,00,00*60"))
        guard case .zda(let z) = p.sentence else { Issue.record("not ZDA"); return }
        #expect(z.time == NMEATime(hour: 20, minute: 15, second: 30, fractionDigits: 2))
        #expect(z.day == 4 && z.month == 7 && z.year == 2002 && z.localZoneHours == 0 && z.localZoneMinutes == 0)
    }

    @Test func gst() throws {
        let p = try #require(parse("$GPGST,172814.0,0.006,0.023,0.020,273.6,0.023,0.020,0.031*6A"))
        guard case .gst(let g) = p.sentence else { Issue.record("not GST"); return }
        #expect(g.rmsRange == 0.006 && g.semiMajorMeters == 0.023 && g.semiMinorMeters == 0.020)
        #expect(g.orientationDegrees == 273.6)
        #expect(g.latitudeErrorMeters == 0.023 && g.longitudeErrorMeters == 0.020 && g.altitudeErrorMeters == 0.031)
    }

    @Test func gns() throws {
        let p = try #require(parse("$GNGNS,014035.00,4332.69262,S,17235.48549,E,RR,13,0.9,25.63,11.24,,,S*00"))
        guard case .gns(let g) = p.sentence else { Issue.record("not GNS"); return }
        #expect(Array(g.modes) == [UInt8(ascii: "R"), UInt8(ascii: "R")])
        #expect(g.bestMode == .fixedRTK)
        #expect(g.satellitesUsed == 13 && g.hdop == 0.9 && g.altitudeMSLMeters == 25.63 && g.geoidSeparationMeters == 11.24)
        #expect(g.navigationalStatus == UInt8(ascii: "S"))
        #expect(abs(try #require(g.latitudeDegrees) + 43.544_877) < 1e-9)
    }

    @Test func gbs() throws {
        let p = try #require(parse("$GPGBS,015509.00,-0.031,-0.186,0.219,19,0.000,-0.354,6.972*00"))
        guard case .gbs(let g) = p.sentence else { Issue.record("not GBS"); return }
        #expect(g.latitudeErrorMeters == -0.031 && g.longitudeErrorMeters == -0.186 && g.altitudeErrorMeters == 0.219)
        #expect(g.failedSatellite == 19 && g.probabilityOfMissedDetection == 0 && g.biasMeters == -0.354)
        #expect(g.biasStandardDeviationMeters == 6.972)
    }

    @Test func headings() throws {
        guard case .hdt(let t) = try #require(parse("$HEHDT,274.07,T*03")).sentence else { Issue.record("HDT"); return }
        #expect(t.headingTrueDegrees == 274.07)
        guard case .hdm(let m) = try #require(parse("$HCHDM,238.5,M*00")).sentence else { Issue.record("HDM"); return }
        #expect(m.headingMagneticDegrees == 238.5)
        guard case .hdg(let g) = try #require(parse("$HCHDG,98.3,0.0,E,12.6,W*00")).sentence else { Issue.record("HDG"); return }
        #expect(g.headingMagneticSensorDegrees == 98.3 && g.deviationDegrees == 0 && g.variationDegrees == -12.6)
        guard case .ths(let s) = try #require(parse("$GNTHS,77.52,A*00")).sentence else { Issue.record("THS"); return }
        #expect(s.headingTrueDegrees == 77.52 && s.mode == UInt8(ascii: "A"))
        guard case .rot(let r) = try #require(parse("$HEROT,-3.5,A*00")).sentence else { Issue.record("ROT"); return }
        #expect(r.degreesPerMinute == -3.5 && r.valid == true)
    }

    @Test func txtAndDtm() throws {
        guard case .txt(let t) = try #require(parse("$GPTXT,01,01,02,ANTSTATUS=OK*3B")).sentence else { Issue.record("TXT"); return }
        #expect(t.totalMessages == 1 && t.messageNumber == 1 && t.identifier == 2 && t.text == "ANTSTATUS=OK")
        guard case .dtm(let d) = try #require(parse("$GPDTM,W84,,0.0,N,0.0,E,0.0,W84*6F")).sentence else { Issue.record("DTM"); return }
        #expect(d.localDatum == "W84" && d.localDatumSubdivision == nil && d.latitudeOffsetMinutes == 0)
        #expect(d.referenceDatum == "W84")
    }

    @Test func proprietaryAndUnsupportedPassThrough() throws {
        let p = try #require(parse("$PGRME,15.0,M,45.0,M,25.0,M*1C"))
        #expect(p.sentence == .proprietary(address: "PGRME"))
        #expect(p.talker == nil)
        let u = try #require(parse("$GPRMB,A,,,,,,,,,,,,V*71"))
        #expect(u.sentence == .unsupported(SentenceType("RMB")))
    }

    @Test(arguments: ["GP", "GN", "GL", "GA", "GB", "BD", "QZ", "GI", "IN", "AP", "HE", "HC", "II", "P1"].filter { $0 != "P1" })
    func anyTwoLetterTalker(talker: String) throws {
        let p = try #require(parse("$\(talker)HDT,10.0,T*00"))
        #expect(p.talker?.description == talker)
        guard case .hdt = p.sentence else { Issue.record("not HDT"); return }
    }

    @Test(arguments: [
        ("$GPGGA,1,2,3*00", RejectionReason.tooFewFields),
        ("$GPGSA,A,3,1,2*00", .tooFewFields),
        ("$G*00", .invalidAddress),
        ("$gpgga,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47", .invalidAddress),
        ("$GPGGAX,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47", .invalidAddress),
    ])
    func invalidSentencesAreCountedByReason(text: String, reason: RejectionReason) {
        let parser = NMEAParser()
        #expect(parser.parse(text: text) == nil)
        #expect(parser.statistics.count(reason) == 1)
    }

    @Test(arguments: [
        "$GPGGA,123519,4807.03X,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47",
        "$GPGGA,253519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47",
        "$GPGGA,123519,4807.038,Q,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47",
        "$GPGGA,123519,4867.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47",
    ])
    func malformedFieldsBecomeNilWithoutRejectingTheSentence(text: String) throws {
        let p = try #require(parse(text))
        guard case .gga(let g) = p.sentence else { Issue.record("not GGA"); return }
        #expect(g.latitudeDegrees == nil || g.time == nil)
        #expect(g.altitudeMSLMeters == 545.4)
    }

    /// Valid sentences (built with real checksums), checksum-less sentences and broken ones through framer+parser.
    @Test func validChecksumlessAndInvalidTables() {
        let valid = ["GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", "GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W",
                     "GNGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1,1", "GLGSV,1,1,01,65,10,20,30", "GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A",
                     "GPZDA,201530.00,04,07,2002,00,00", "HEHDT,274.07,T", "PUBX,00,1,2,3"].map { NMEAEncoder.sentence($0) }
        let checksumless = ["$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,\r\n", "$HEHDT,274.07,T\r\n"]
        let framer = NMEAFramer()
        let lenient = NMEAFramer(options: .init(acceptMissingChecksum: true))
        let parser = NMEAParser()
        var parsed = 0, lenientParsed = 0
        for s in valid + checksumless {
            framer.feed(Array(s.utf8)) { if parser.parse($0) != nil { parsed += 1 } }
            lenient.feed(Array(s.utf8)) { if parser.parse($0) != nil { lenientParsed += 1 } }
        }
        #expect(parsed == valid.count)
        #expect(lenientParsed == valid.count + checksumless.count)
        #expect(framer.statistics.count(.missingChecksum) == checksumless.count)
    }
}
