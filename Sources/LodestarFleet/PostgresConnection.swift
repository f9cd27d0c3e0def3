import CPostgres

/// A libpq connection (synchronous; used from the fleet's writer thread only).
final class PostgresConnection {
    struct Error: Swift.Error, CustomStringConvertible {
        var message: String
        /// The connection itself is gone (reconnect and retry), not a bad statement.
        var connectionLost: Bool
        var description: String { message }
    }

    private let conn: OpaquePointer

    init(_ conninfo: String) throws(Error) {
        guard let c = PQconnectdb(conninfo) else { throw Error(message: "out of memory", connectionLost: true) }
        if PQstatus(c) != CONNECTION_OK {
            let text = String(cString: PQerrorMessage(c)).trimmingNewlines
            PQfinish(c)
            throw Error(message: text, connectionLost: true)
        }
        conn = c
    }

    deinit { PQfinish(conn) }

    var isOK: Bool { PQstatus(conn) == CONNECTION_OK }

    /// Runs one statement with text parameters (nil = NULL); returns the rows as text (nil = NULL).
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?] = []) throws(Error) -> [[String?]] {
        var cStrings: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.flatMap { strdup($0) } }
        defer { for p in cStrings { free(p) } }
        let result = cStrings.withUnsafeMutableBufferPointer { buf in
            buf.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: max(1, buf.count)) { p in
                PQexecParams(conn, sql, Int32(parameters.count), nil, parameters.isEmpty ? nil : p, nil, nil, 0)
            }
        }
        guard let result else { throw Error(message: String(cString: PQerrorMessage(conn)).trimmingNewlines, connectionLost: !isOK) }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw Error(message: String(cString: PQresultErrorMessage(result)).trimmingNewlines, connectionLost: !isOK)
        }
        var rows: [[String?]] = []
        let n = PQntuples(result), m = PQnfields(result)
        for i in 0..<n {
            var row: [String?] = []
            for j in 0..<m { row.append(PQgetisnull(result, i, j) != 0 ? nil : String(cString: PQgetvalue(result, i, j))) }
            rows.append(row)
        }
        return rows
    }
}

private func strdup(_ s: String) -> UnsafeMutablePointer<CChar>? {
    let u = Array(s.utf8CString)
    let p = UnsafeMutablePointer<CChar>.allocate(capacity: u.count)
    p.initialize(from: u, count: u.count)
    return p
}
private func free(_ p: UnsafeMutablePointer<CChar>?) { p?.deallocate() }

extension String {
    var trimmingNewlines: String {
        var s = Substring(self)
        while s.last == "\n" || s.last == " " { s.removeLast() }
        return String(s)
    }
}
