#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore
import NMEA

/// The simulated receiver: noisy position and velocity, DOPs and a fixed sky, encoded as NMEA.
struct GNSSModel {
    struct Satellite { var id: Int; var elevation: Double; var azimuth: Double; var period: Double; var phase: Double }

    let settings: RouteSimulator.Settings
    let encoder = NMEAEncoder(talker: "GP", coordinateDecimals: 5)
    var random: SimulationRandom
    var sky: [Satellite]
    var skyRandom: SimulationRandom
    let dopPhase: Double
    /// Gauss–Markov states east, north, up (m) and the time of the last update.
    var correlated = (east: 0.0, north: 0.0, up: 0.0)
    var lastSeconds: Double?

    /// GPS satellites over the Bay Area, fixed for the few minutes of a drive: (PRN, elevation, azimuth).
    static let fixedSky: [(Int, Double, Double)] = [
        (2, 62, 41), (5, 18, 289), (10, 35, 132), (12, 71, 318), (13, 24, 197), (15, 48, 243),
        (18, 9, 78), (20, 41, 60), (24, 15, 162), (25, 53, 105), (29, 28, 21), (32, 12, 340),
    ]
    /// Satellites above this elevation are used in the fix.
    static let elevationMask = 15.0

    init(settings: RouteSimulator.Settings) {
        self.settings = settings
        random = SimulationRandom(seed: settings.seed, stream: 1)
        skyRandom = SimulationRandom(seed: settings.seed, stream: 3)
        var sky: [Satellite] = []
        for (n, (id, el, az)) in Self.fixedSky.enumerated() {
            sky.append(Satellite(id: id, elevation: el, azimuth: az, period: 70 + 13 * Double(n),
                                 phase: 2 * Double.pi * skyRandom.uniform()))
        }
        self.sky = sky
        dopPhase = 2 * Double.pi * skyRandom.uniform()
    }

    var usedIDs: [Int] { sky.filter { $0.elevation >= Self.elevationMask }.map(\.id) }

    /// The sentences of one epoch with their arrival offsets (ns after the epoch): output starts 45–55 ms after
    /// the epoch and each sentence arrives when its last byte would at 115200 baud (a few ms apart).
    mutating func epoch(index: Int, seconds: Double, time: Timestamp, state: Kinematics, east: Double, north: Double,
                        geo: LocalTangentPlane) -> [(Int64, [UInt8])] {
        let s = settings
        // Correlated errors: x ← φx + σ√(1−φ²)·w, started from the stationary distribution.
        if let last = lastSeconds {
            let tau = s.gnssCorrelationTimeSeconds
            let phi = tau > 0 && tau.isFinite ? exp(-(seconds - last) / tau) : 0
            let q = (1 - phi * phi).squareRoot()
            correlated.east = phi * correlated.east + s.gnssCorrelatedNoiseMeters * q * random.normal()
            correlated.north = phi * correlated.north + s.gnssCorrelatedNoiseMeters * q * random.normal()
            correlated.up = phi * correlated.up + s.altitudeCorrelatedNoiseMeters * q * random.normal()
        } else {
            correlated = (s.gnssCorrelatedNoiseMeters * random.normal(), s.gnssCorrelatedNoiseMeters * random.normal(),
                          s.altitudeCorrelatedNoiseMeters * random.normal())
        }
        lastSeconds = seconds
        let reportedEast = east + correlated.east + s.gnssNoiseMeters * random.normal()
        let reportedNorth = north + correlated.north + s.gnssNoiseMeters * random.normal()
        let altitude = s.altitudeMSLMeters + correlated.up + s.altitudeNoiseMeters * random.normal()
        let (lat, lon) = geo.geodetic(east: reportedEast, north: reportedNorth)

        // Velocity from Doppler: independent of the position errors.
        let psi = state.headingDegrees * Double.pi / 180
        let ve = state.speed * sin(psi) + s.speedNoiseMetersPerSecond * random.normal()
        let vn = state.speed * cos(psi) + s.speedNoiseMetersPerSecond * random.normal()
        let speed = (ve * ve + vn * vn).squareRoot()

        // HDOP wanders slowly within 0.9…1.3.
        let hdop = min(1.3, max(0.9, 1.1 + 0.15 * sin(2 * Double.pi * seconds / 173 + dopPhase)
                                       + 0.03 * random.normal()))
        let vdop = hdop * 1.45
        let pdop = (hdop * hdop + vdop * vdop).squareRoot()

        var l = Location()
        l.time = time
        l.timeFractionDigits = 2
        l.latitudeDegrees = lat
        l.longitudeDegrees = lon
        l.altitudeMSLMeters = altitude
        l.geoidSeparationMeters = s.geoidSeparationMeters
        l.mode = .threeD
        l.quality = .gps
        l.satellitesUsed = usedIDs.count
        l.satellitesVisible = sky.count
        l.hdop = hdop; l.vdop = vdop; l.pdop = pdop
        l.speedMetersPerSecond = speed
        l.courseDegrees = speed >= 0.1 ? Angle.normalizedDegrees(atan2(ve, vn) * 180 / Double.pi) : nil

        var sentences = [encoder.rmc(l), encoder.gga(l),
                         encoder.gsa(mode: .threeD, usedIDs: usedIDs, pdop: pdop, hdop: hdop, vdop: vdop)]
        if index % 5 == 0 {
            var view: [(id: Int, elevation: Double?, azimuth: Double?, snr: Double?)] = []
            for sat in sky {
                let base = 22 + 22 * sin(sat.elevation * Double.pi / 180)
                let snr = base + 2.5 * sin(2 * Double.pi * seconds / sat.period + sat.phase) + 0.7 * skyRandom.normal()
                view.append((sat.id, sat.elevation, sat.azimuth, min(55, max(0, snr))))
            }
            sentences += encoder.gsv(view)
        }

        let latency = 45_000_000 + Int64(random.uniform() * 10_000_000)
        var bytesSent: Int64 = 0
        var out: [(Int64, [UInt8])] = []
        out.reserveCapacity(sentences.count)
        for sentence in sentences {
            let bytes = Array(sentence.utf8)
            bytesSent += Int64(bytes.count)
            out.append((latency + bytesSent * 10 * 1_000_000_000 / 115_200, bytes))
        }
        return out
    }
}
