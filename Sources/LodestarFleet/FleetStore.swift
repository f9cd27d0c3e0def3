import LocationCore

/// One fix as received from a board.
struct FleetFix: Sendable {
    var device: String
    var location: Location
    var time: Timestamp
    /// Monotonic receive time (for the end-to-end latency figures).
    var receivedMonotonicNanos: Int64
}

/// A fleet-side region event.
struct FleetRegionEvent: Sendable {
    var device: String
    var event: RegionEventRow
}

struct RegionEventRow: Sendable {
    var time: Timestamp
    var region: String
    var kind: String
    var previousState: String
    var latitudeDegrees: Double
    var longitudeDegrees: Double
    var distanceMeters: Double
}

/// Writes fixes and region events to PostgreSQL + PostGIS (docs/fleet.md, "Database"): one `positions` table
/// (geography point, primary key device+time so a QoS 1 redelivery inserts nothing), `last_positions` (one row
/// per device, only moved forward in time) and `region_events`. One transaction per batch.
final class FleetStore {
    static let schema = """
    CREATE EXTENSION IF NOT EXISTS postgis;
    CREATE TABLE IF NOT EXISTS positions (
        device text NOT NULL,
        time timestamptz NOT NULL,
        position geography(Point, 4326) NOT NULL,
        altitude_msl_m double precision,
        horizontal_accuracy_m double precision,
        vertical_accuracy_m double precision,
        speed_mps double precision,
        course_deg double precision,
        mode text,
        received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (device, time)
    );
    CREATE INDEX IF NOT EXISTS positions_time_idx ON positions (time);
    CREATE INDEX IF NOT EXISTS positions_position_idx ON positions USING gist (position);
    CREATE TABLE IF NOT EXISTS last_positions (
        device text PRIMARY KEY,
        time timestamptz NOT NULL,
        position geography(Point, 4326) NOT NULL,
        altitude_msl_m double precision,
        horizontal_accuracy_m double precision,
        speed_mps double precision,
        course_deg double precision,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
    );
    CREATE TABLE IF NOT EXISTS region_events (
        device text NOT NULL,
        time timestamptz NOT NULL,
        region text NOT NULL,
        event text NOT NULL,
        previous_state text NOT NULL,
        position geography(Point, 4326) NOT NULL,
        distance_m double precision,
        PRIMARY KEY (device, time, region)
    );
    """

    let conninfo: String
    private var connection: PostgresConnection?
    private(set) var rowsInserted = 0
    private(set) var duplicates = 0

    init(conninfo: String) { self.conninfo = conninfo }

    /// Connects (if needed) and creates the schema.
    func open() throws(PostgresConnection.Error) {
        if connection?.isOK == true { return }
        connection = nil
        let c = try PostgresConnection(conninfo)
        try c.execute("SET client_min_messages TO warning")
        for statement in Self.schema.split(separator: ";") where !statement.allSatisfy(\.isWhitespace) {
            try c.execute(String(statement))
        }
        connection = c
    }

    /// Writes one batch in one transaction; returns the rows actually inserted. On error the batch can be retried.
    @discardableResult
    func write(_ fixes: [FleetFix], _ events: [FleetRegionEvent]) throws(PostgresConnection.Error) -> Int {
        try open()
        guard let c = connection else { return 0 }
        do {
            try c.execute("BEGIN")
            var inserted = 0
            var start = 0
            while start < fixes.count {
                let chunk = fixes[start..<min(fixes.count, start + 500)]
                inserted += try insertPositions(c, chunk)
                start += 500
            }
            var newest: [String: FleetFix] = [:]
            for f in fixes where (newest[f.device]?.time ?? Timestamp(nanosecondsSince1970: .min)) < f.time { newest[f.device] = f }
            if !newest.isEmpty { try upsertLast(c, Array(newest.values)) }
            if !events.isEmpty { try insertEvents(c, events) }
            try c.execute("COMMIT")
            rowsInserted += inserted
            duplicates += fixes.count - inserted
            return inserted
        } catch {
            if error.connectionLost { connection = nil } else { _ = try? c.execute("ROLLBACK") }
            throw error
        }
    }

    private func insertPositions(_ c: PostgresConnection, _ fixes: ArraySlice<FleetFix>) throws(PostgresConnection.Error) -> Int {
        var sql = "INSERT INTO positions (device, time, position, altitude_msl_m, horizontal_accuracy_m, vertical_accuracy_m, speed_mps, course_deg, mode) VALUES "
        var params: [String?] = []
        params.reserveCapacity(fixes.count * 10)
        for (k, f) in fixes.enumerated() {
            let b = k * 10
            if k > 0 { sql += "," }
            sql += "($\(b + 1),$\(b + 2)::timestamptz,ST_SetSRID(ST_MakePoint($\(b + 3)::float8,$\(b + 4)::float8),4326)::geography,$\(b + 5)::float8,$\(b + 6)::float8,$\(b + 7)::float8,$\(b + 8)::float8,$\(b + 9)::float8,$\(b + 10))"
            let l = f.location
            params += [f.device, f.time.iso8601(fractionDigits: 6), text(l.longitudeDegrees), text(l.latitudeDegrees),
                       text(l.altitudeMSLMeters), text(l.horizontalAccuracyMeters), text(l.verticalAccuracyMeters),
                       text(l.speedMetersPerSecond), text(l.courseDegrees), l.mode.name]
        }
        sql += " ON CONFLICT (device, time) DO NOTHING RETURNING 1"
        return try c.execute(sql, params).count
    }

    private func upsertLast(_ c: PostgresConnection, _ fixes: [FleetFix]) throws(PostgresConnection.Error) {
        var sql = "INSERT INTO last_positions (device, time, position, altitude_msl_m, horizontal_accuracy_m, speed_mps, course_deg) VALUES "
        var params: [String?] = []
        for (k, f) in fixes.enumerated() {
            let b = k * 8
            if k > 0 { sql += "," }
            sql += "($\(b + 1),$\(b + 2)::timestamptz,ST_SetSRID(ST_MakePoint($\(b + 3)::float8,$\(b + 4)::float8),4326)::geography,$\(b + 5)::float8,$\(b + 6)::float8,$\(b + 7)::float8,$\(b + 8)::float8)"
            let l = f.location
            params += [f.device, f.time.iso8601(fractionDigits: 6), text(l.longitudeDegrees), text(l.latitudeDegrees),
                       text(l.altitudeMSLMeters), text(l.horizontalAccuracyMeters), text(l.speedMetersPerSecond), text(l.courseDegrees)]
        }
        sql += """
         ON CONFLICT (device) DO UPDATE SET time = EXCLUDED.time, position = EXCLUDED.position,
         altitude_msl_m = EXCLUDED.altitude_msl_m, horizontal_accuracy_m = EXCLUDED.horizontal_accuracy_m,
         speed_mps = EXCLUDED.speed_mps, course_deg = EXCLUDED.course_deg, updated_at = clock_timestamp()
         WHERE last_positions.time < EXCLUDED.time
        """
        try c.execute(sql, params)
    }

    private func insertEvents(_ c: PostgresConnection, _ events: [FleetRegionEvent]) throws(PostgresConnection.Error) {
        var sql = "INSERT INTO region_events (device, time, region, event, previous_state, position, distance_m) VALUES "
        var params: [String?] = []
        for (k, e) in events.enumerated() {
            let b = k * 8
            if k > 0 { sql += "," }
            sql += "($\(b + 1),$\(b + 2)::timestamptz,$\(b + 3),$\(b + 4),$\(b + 5),ST_SetSRID(ST_MakePoint($\(b + 6)::float8,$\(b + 7)::float8),4326)::geography,$\(b + 8)::float8)"
            params += [e.device, e.event.time.iso8601(fractionDigits: 6), e.event.region, e.event.kind, e.event.previousState,
                       text(e.event.longitudeDegrees), text(e.event.latitudeDegrees), text(e.event.distanceMeters)]
        }
        sql += " ON CONFLICT DO NOTHING"
        try c.execute(sql, params)
    }

    private func text(_ v: Double?) -> String? {
        guard let v, v.isFinite else { return nil }
        return "\(v)"
    }
}
