/// One Gauss coefficient pair of a spherical-harmonic field model, as a WMM.COF line gives it:
/// `n m g h ġ ḣ` (degree, order, main field in nT, secular variation in nT/year).
public struct GaussCoefficient: Sendable, Hashable {
    public var degree: Int
    public var order: Int
    public var gNanotesla: Double
    public var hNanotesla: Double
    public var gNanoteslaPerYear: Double
    public var hNanoteslaPerYear: Double

    public init(degree: Int, order: Int, gNanotesla: Double, hNanotesla: Double,
                gNanoteslaPerYear: Double, hNanoteslaPerYear: Double) {
        self.degree = degree; self.order = order
        self.gNanotesla = gNanotesla; self.hNanotesla = hNanotesla
        self.gNanoteslaPerYear = gNanoteslaPerYear; self.hNanoteslaPerYear = hNanoteslaPerYear
    }
}

/// Why a coefficient file was refused. Lines are numbered from 1.
public enum WMMCoefficientFileError: Error, Sendable, Hashable, CustomStringConvertible {
    case missingHeader
    case badHeader(line: Int)
    case badCoefficientLine(line: Int)
    case degreeOutOfRange(line: Int)
    case duplicateCoefficient(line: Int, degree: Int, order: Int)
    case missingCoefficient(degree: Int, order: Int)
    case missingTerminator
    case noCoefficients

    public var description: String {
        switch self {
        case .missingHeader: "no header line (epoch and model name)"
        case .badHeader(let line): "line \(line): header must be '<epoch> <model name> [<release date>]'"
        case .badCoefficientLine(let line): "line \(line): expected six numbers 'n m g h gdot hdot'"
        case .degreeOutOfRange(let line): "line \(line): degree n must be an integer in 1…\(WMMCoefficientFile.degreeLimit) and order m in 0…n"
        case .duplicateCoefficient(let line, let n, let m): "line \(line): coefficient (\(n), \(m)) given twice"
        case .missingCoefficient(let n, let m): "coefficient (\(n), \(m)) is missing"
        case .missingTerminator: "no terminator line of 9s"
        case .noCoefficients: "no coefficients"
        }
    }
}

/// The content of a NOAA coefficient file (WMM.COF): a header line `epoch name release-date`, one line per
/// coefficient `n m g h ġ ḣ` for 1 ≤ n ≤ N, 0 ≤ m ≤ n, and a terminator line of 9s.
public struct WMMCoefficientFile: Sendable, Hashable {
    /// Reference epoch as a decimal year (2025.0 for WMM2025).
    public var epoch: Double
    /// The model name as the header gives it ("WMM-2025").
    public var modelName: String
    /// The release date as the header gives it ("11/13/2024"), if present.
    public var releaseDate: String?
    /// The coefficients in file order.
    public var coefficients: [GaussCoefficient]
    /// The highest degree N; the file holds N (N + 3) / 2 coefficients.
    public var maximumDegree: Int

    /// The highest degree accepted (WMMHR goes to 133).
    public static let degreeLimit = 200

    public init(bytes: [UInt8]) throws(WMMCoefficientFileError) {
        var header: (epoch: Double, name: String, release: String?)?
        var rows: [(line: Int, fields: [Double])] = []
        var terminated = false
        var lineNumber = 0
        var start = 0
        let count = bytes.count
        while start < count, !terminated {
            var end = start
            while end < count, bytes[end] != 0x0A { end += 1 }
            lineNumber += 1
            let tokens = Self.tokens(bytes, start, end)
            start = end + 1
            if tokens.isEmpty { continue }
            if header == nil {
                guard tokens.count >= 2, tokens.count <= 3, let epoch = Double(tokens[0]), epoch.isFinite else {
                    throw .badHeader(line: lineNumber)
                }
                header = (epoch, tokens[1], tokens.count == 3 ? tokens[2] : nil)
                continue
            }
            if tokens.count == 1, tokens[0].utf8.count >= 4, tokens[0].utf8.allSatisfy({ $0 == 0x39 }) {
                terminated = true
                continue
            }
            guard tokens.count == 6 else { throw .badCoefficientLine(line: lineNumber) }
            var fields: [Double] = []
            fields.reserveCapacity(6)
            for t in tokens {
                guard let v = Double(t), v.isFinite else { throw .badCoefficientLine(line: lineNumber) }
                fields.append(v)
            }
            rows.append((lineNumber, fields))
        }
        guard let header else { throw .missingHeader }
        guard terminated else { throw .missingTerminator }
        guard !rows.isEmpty else { throw .noCoefficients }

        var coefficients: [GaussCoefficient] = []
        coefficients.reserveCapacity(rows.count)
        var maximumDegree = 0
        var seen = Set<Int>()
        for (line, f) in rows {
            guard let n = Int(exactly: f[0]), let m = Int(exactly: f[1]),
                  n >= 1, n <= Self.degreeLimit, m >= 0, m <= n else {
                throw .degreeOutOfRange(line: line)
            }
            guard seen.insert(n * (Self.degreeLimit + 1) + m).inserted else {
                throw .duplicateCoefficient(line: line, degree: n, order: m)
            }
            maximumDegree = max(maximumDegree, n)
            coefficients.append(GaussCoefficient(degree: n, order: m, gNanotesla: f[2], hNanotesla: f[3],
                                                 gNanoteslaPerYear: f[4], hNanoteslaPerYear: f[5]))
        }
        for n in 1...maximumDegree {
            for m in 0...n where !seen.contains(n * (Self.degreeLimit + 1) + m) {
                throw .missingCoefficient(degree: n, order: m)
            }
        }
        self.epoch = header.epoch
        self.modelName = header.name
        self.releaseDate = header.release
        self.coefficients = coefficients
        self.maximumDegree = maximumDegree
    }

    /// Whitespace-separated tokens of bytes[start..<end] (spaces, tabs, CR).
    private static func tokens(_ bytes: [UInt8], _ start: Int, _ end: Int) -> [String] {
        var out: [String] = []
        var i = start
        while i < end {
            while i < end, Self.isSpace(bytes[i]) { i += 1 }
            let s = i
            while i < end, !Self.isSpace(bytes[i]) { i += 1 }
            if i > s { out.append(String(decoding: bytes[s..<i], as: UTF8.self)) }
        }
        return out
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D }
}
