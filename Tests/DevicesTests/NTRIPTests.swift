import Devices
import Testing

struct NTRIPTests {
    @Test func urlsParseAndRefuseAPassword() throws {
        let u = try NTRIPURL(parsing: "ntrip://rover@caster.example:2102/VRS_RTCM32")
        #expect(u == NTRIPURL(user: "rover", host: "caster.example", port: 2102, mountpoint: "VRS_RTCM32"))
        #expect(try NTRIPURL(parsing: "ntrip://caster.example/M").port == 2101)
        #expect(try NTRIPURL(parsing: "ntrip://u@[::1]:2101/M").host == "::1")
        for bad in ["ntrip://u:p@host/M", "http://host/M", "ntrip://host", "ntrip://host/", "ntrip://host:99999/M", "ntrip://@host/M",
                    "ntrip://ho st/M", ""] {
            #expect(throws: NTRIPError.self, "\(bad)") { try NTRIPURL(parsing: bad) }
        }
    }

    @Test func sourceTableLinesGiveMountFormatSystemsPositionAndNMEAFlag() {
        let table = """
            SOURCETABLE 200 OK\r
            CAS;rtk2go.com;2101;RTK2go;SNIP;0;USA;40.00;-75.00;0.0.0.0;0;http://rtk2go.com\r
            STR;MUNICH;Munich;RTCM 3.2;1005(10),1077(1),1087(1);2;GPS+GLO+GAL+BDS;SNIP;DEU;48.12;11.52;0;0;u-blox;none;B;N;9600;\r
            STR;VRS;Virtual;RTCM 3.3;1004,1012;2;GPS+GLO;NET;DEU;0.00;0.00;1;1;Trimble;none;B;Y;4800;\r
            STR;short;x\r
            ENDSOURCETABLE\r

            """
        let streams = NTRIPStream.table(table)
        #expect(streams.count == 2)
        #expect(streams[0].mountpoint == "MUNICH" && streams[0].format == "RTCM 3.2" && streams[0].navigationSystem == "GPS+GLO+GAL+BDS")
        #expect(streams[0].latitudeDegrees == 48.12 && streams[0].longitudeDegrees == 11.52 && !streams[0].needsNMEA)
        #expect(streams[1].needsNMEA)
    }

    @Test func chunkedDecodingIsTheSameInAnyPieces() {
        let body: [UInt8] = Array("4\r\nWiki\r\n5;ext=1\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\n\r\n".utf8)
        var whole = ChunkedDecoder()
        #expect(String(decoding: whole.decode(body), as: UTF8.self) == "Wikipedia in\r\n\r\nchunks.")
        #expect(whole.isDone && !whole.failed)
        var bytewise = ChunkedDecoder()
        var out: [UInt8] = []
        for b in body { out += bytewise.decode([b]) }
        #expect(String(decoding: out, as: UTF8.self) == "Wikipedia in\r\n\r\nchunks.")
        var bad = ChunkedDecoder()
        _ = bad.decode(Array("zz\r\n".utf8))
        #expect(bad.failed)
    }

    @Test func answersAreJudged() {
        #expect(NTRIPRequest.judge("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked") == .ok(chunked: true))
        #expect(NTRIPRequest.judge("HTTP/1.0 200 OK") == .ok(chunked: false))
        #expect(NTRIPRequest.judge("SOURCETABLE 200 OK\r\nServer: x") != .ok(chunked: false))
        if case .refused(let m, let auth) = NTRIPRequest.judge("HTTP/1.1 401 Unauthorized") {
            #expect(auth && m.contains("401"))
        } else { Issue.record("401 not refused") }
        #expect(NTRIPRequest.base64(Array("rover:s3cret".utf8)) == "cm92ZXI6czNjcmV0")
        let v1 = NTRIPRequest.get(url: NTRIPURL(user: "u", host: "h", mountpoint: "M"), password: "p", version: 1, gga: "$GPGGA,x*00\r\n")
        #expect(v1.hasPrefix("GET /M HTTP/1.0\r\n") && v1.hasSuffix("\r\n\r\n$GPGGA,x*00\r\n"))
    }
}
