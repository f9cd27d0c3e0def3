import Foundation
import Testing
import TestSupport

/// `lodestar reverse`, `lodestar geocode` and their CSV batch modes, run as the built binary.
@Suite("lodestar reverse / geocode", .ownThreads)
struct GeocodeCLITests {
    @Test func reverseText() throws {
        let r = try Lodestar.run(["reverse", "48.8566", "2.3522"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("locality: Paris"))
        #expect(r.stdout.contains("country: France (FR)"))
        #expect(r.stdout.contains("timeZone: Europe/Paris"))
    }

    @Test func reverseNegativeCoordinatesAndJSON() throws {
        let r = try Lodestar.run(["reverse", "--json", "-33.8688", "151.2093"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\"isoCountryCode\":\"AU\""))
        let w = try Lodestar.run(["reverse", "37.3230", "-122.0322"])
        #expect(w.stdout.contains("locality: Cupertino"))
    }

    @Test func reverseBadCoordinateIsUsageError() throws {
        let r = try Lodestar.run(["reverse", "95", "0"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("bad coordinate"))
    }

    @Test func reverseBatchKeepsOneRowPerInputRow() throws {
        let input = "lat,lon\n48.8566,2.3522\nnot,a number\n0,-30\n\"35.6895\",\"139.6917\"\r\n"
        let r = try Lodestar.run(["reverse", "--batch"], stdin: Data(input.utf8))
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 5)
        #expect(lines[0] == "isoCountryCode,country,administrativeArea,subAdministrativeArea,locality,name,ocean,timeZone")
        #expect(lines[1].hasPrefix("FR,France,Île-de-France,"))
        #expect(lines[2] == ",,,,,,,")
        #expect(lines[3] == ",,,,,,South Atlantic Ocean,Etc/GMT+2")
        #expect(lines[4].hasPrefix("JP,Japan,"))
        #expect(r.stderr.contains("1 bad row"))
    }

    @Test func geocodeTextAndBatch() throws {
        let r = try Lodestar.run(["geocode", "Paris, TX", "--limit", "1"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("administrativeArea: Texas"))
        let b = try Lodestar.run(["geocode", "--batch"], stdin: Data("München\nParis, TX\nxqzzyv qwrtp\n".utf8))
        let lines = b.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0] == "query,lat,lon,name,isoCountryCode,administrativeArea")
        #expect(lines[1].hasPrefix("München,48.1"))
        #expect(lines[1].hasSuffix(",Munich,DE,Bavaria"))
        #expect(lines[2].hasPrefix("\"Paris, TX\",33.6"))
        #expect(lines[3] == "xqzzyv qwrtp,,,,,")
    }

    @Test func regionHintAndBadHint() throws {
        let r = try Lodestar.run(["geocode", "Paris", "--region-hint", "33,-96,200000", "--limit", "1", "--json"])
        #expect(r.stdout.contains("\"isoCountryCode\":\"US\""))
        let bad = try Lodestar.run(["geocode", "Paris", "--region-hint", "north"])
        #expect(bad.status == 64)
    }

    @Test func aboutNamesTheDataLicences() throws {
        let r = try Lodestar.run(["about"])
        #expect(r.stdout.contains("GeoNames"))
        #expect(r.stdout.contains("CC BY 4.0"))
        #expect(r.stdout.contains("Natural Earth"))
        #expect(r.stdout.contains("ODbL"))
        #expect(r.stdout.contains("marine polygons"))
        #expect(r.stdout.contains("admin-1 states/provinces"))
        #expect(r.stdout.contains("National Geographic Information Institute (NGII)"))
    }

    @Test func versionNamesTheDataLicences() throws {
        let r = try Lodestar.run(["--version"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("0.1.0\n"))
        #expect(r.stdout.contains("GeoNames (CC BY 4.0)"))
        #expect(r.stdout.contains("ODbL"))
    }
}

@Suite("--placemark on replay", .ownThreads)
struct PlacemarkOptionTests {
    @Test func everyFixOfTheShippedDriveCarriesItsPlacemark() throws {
        let capture = SharedData.packageRoot.appendingPathComponent("captures/simulated-drive.lcap").path
        let r = try Lodestar.run(["replay", "--placemark", "--no-sky", "--no-heading", capture])
        #expect(r.status == 0, "\(r.stderr)")
        let fixes = r.stdout.split(separator: "\n").filter { $0.contains("\"class\":\"fix\"") }
        #expect(fixes.count == 300)
        // The simulated drive is in Mountain View, California.
        #expect(fixes.isNonEmptyAndAllSatisfy { $0.contains("\"isoCountryCode\":\"US\"") && $0.contains("\"timeZone\":\"America/Los_Angeles\"") })
        #expect(fixes.isNonEmptyAndAllSatisfy { $0.contains("\"administrativeArea\":\"California\"") })
        // Without the flag no placemark.
        let plain = try Lodestar.run(["replay", "--no-sky", "--no-heading", capture])
        #expect(!plain.stdout.contains("placemark"))
    }
}
