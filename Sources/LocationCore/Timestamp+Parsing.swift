/// Parses `YYYY-MM-DDTHH:MM:SS[.fffffffff]Z`.
public func parseISOTimestamp(_ text: String) -> Timestamp? {
    let u = Array(text.utf8)
    guard u.count >= 20, u[4] == 0x2D, u[7] == 0x2D, u[10] == 0x54, u[13] == 0x3A, u[16] == 0x3A, u.last == 0x5A
    else { return nil }
    func num(_ a: Int, _ b: Int) -> Int? { Int(String(decoding: u[a..<b], as: UTF8.self)) }
    guard let y = num(0, 4), let mo = num(5, 7), let d = num(8, 10), let h = num(11, 13), let mi = num(14, 16),
          let s = num(17, 19) else { return nil }
    var nano = 0
    if u.count > 20 {
        guard u[19] == 0x2E else { return nil }
        let digits = u[20..<(u.count - 1)]
        guard !digits.isEmpty, digits.count <= 9 else { return nil }
        var scale = 100_000_000
        for c in digits {
            let v = Int(c) - 0x30
            guard (0...9).contains(v) else { return nil }
            nano += v * scale
            scale /= 10
        }
    }
    return Timestamp(year: y, month: mo, day: d, hour: h, minute: mi, second: s, nanosecond: nano)
}
