#if canImport(Glibc)
import Glibc
#endif
import CLinux
import LocationCore
import LodestarIO
import NMEA
import UBX

/// Sets a receiver's rate, constellations, dynamic model, messages and baud rate over the port it is read from.
/// u-blox (UBX) is the one vendor implemented; another vendor (Septentrio, Quectel PAIR/PQTM, SiRF …) is another
/// conformance, chosen from what `identify` learns.
public protocol ReceiverConfigurator: Sendable {
    /// Asks the receiver who it is (u-blox: polls MON-VER).
    func identify(_ port: SerialPort, passthrough: (SerialChunk) -> Void) throws(ReceiverConfigurationError) -> ReceiverVersion
    /// Applies `settings` (RAM only unless `save`), each acknowledged; the first refusal or silence ends it.
    /// Bytes read meanwhile go to `passthrough` (the live source delivers them as usual); each acknowledged setting
    /// to `acknowledged` as it comes. Returns the settings applied.
    func apply(_ settings: ReceiverSettings, save: Bool, version: ReceiverVersion, port: SerialPort,
               passthrough: (SerialChunk) -> Void, acknowledged: (String) -> Void) throws(ReceiverConfigurationError) -> [String]
}

/// What a receiver says about itself.
public struct ReceiverVersion: Sendable, Hashable {
    public var monVER: MonVER
    public var generation: Int? { monVER.generation }
    public init(monVER: MonVER) { self.monVER = monVER }
}

/// Why configuring stopped: one line naming the setting.
public enum ReceiverConfigurationError: Error, Sendable, CustomStringConvertible {
    /// No MON-VER answer: not a u-blox receiver, wrong baud rate, or UBX input disabled.
    case noAnswer(path: String)
    /// ACK-NAK.
    case refused(setting: String)
    /// Neither ACK nor NAK in time.
    case timedOut(setting: String)
    /// The setting does not exist on this receiver (generation, constellation).
    case unsupported(String)
    case hungUp(path: String)
    case io(SystemError)

    public var description: String {
        switch self {
        case .noAnswer(let path): "\(path): no answer to UBX MON-VER (not a u-blox receiver, wrong baud rate, or UBX input disabled)"
        case .refused(let s): "the receiver refused \(s) (ACK-NAK)"
        case .timedOut(let s): "the receiver did not acknowledge \(s) (no ACK-ACK or ACK-NAK in time)"
        case .unsupported(let s): s
        case .hungUp(let path): "\(path): device hung up (unplugged?)"
        case .io(let e): e.description
        }
    }
}

/// u-blox receivers: MON-VER gives the generation; CFG-VALSET (9+) or the CFG-* messages (6–8), each ACK-ACKed.
public struct UBloxConfigurator: ReceiverConfigurator {
    public var pollMilliseconds = 50
    /// Per attempt; each message is sent at most `attempts` times.
    public var acknowledgementTimeoutMilliseconds = 1500
    public var attempts = 2
    public init() {}

    public func identify(_ port: SerialPort, passthrough: (SerialChunk) -> Void) throws(ReceiverConfigurationError) -> ReceiverVersion {
        let poll = UBX.poll(classID: 0x0A, messageID: 0x04)
        for _ in 0..<3 {
            try send(poll, port)
            var found: MonVER?
            try waitFor(port, milliseconds: 1000, passthrough: passthrough) { frame in
                guard frame.classID == 0x0A, frame.messageID == 0x04 else { return false }
                found = MonVER(payload: frame.payload)
                return found != nil
            }
            if let found { return ReceiverVersion(monVER: found) }
        }
        throw .noAnswer(path: port.path)
    }

    public func apply(_ settings: ReceiverSettings, save: Bool, version: ReceiverVersion, port: SerialPort,
                      passthrough: (SerialChunk) -> Void, acknowledged: (String) -> Void) throws(ReceiverConfigurationError) -> [String] {
        guard let generation = version.generation else {
            throw .unsupported("cannot tell the u-blox generation from MON-VER (\(version.monVER.summary), hardware \(version.monVER.hardwareVersion))")
        }
        let steps: [UBXConfigurationStep]
        do { steps = try UBXConfigurationPlan.steps(for: settings, generation: generation, save: save) } catch {
            throw .unsupported(error.description)
        }
        var applied: [String] = []
        for step in steps {
            guard let bytes = step.message.framed else { throw .unsupported("\(step.setting): message too long") }
            var answer: Bool?
            for _ in 0..<max(1, attempts) where answer == nil {
                try send(bytes, port)
                try waitFor(port, milliseconds: acknowledgementTimeoutMilliseconds, passthrough: passthrough) { frame in
                    answer = UBXConfigurationPlan.acknowledgement(frame, for: step.message)
                    return answer != nil
                }
                // After a baud change the ACK may have been lost in the switch: follow the receiver and ask again.
                if answer == nil, let b = step.newBaudRate { try follow(port, baud: b); answer = try confirm(port, passthrough) }
            }
            switch answer {
            case true?: applied.append(step.setting); acknowledged(step.setting)
            case false?: throw .refused(setting: step.setting)
            case nil: throw .timedOut(setting: step.setting)
            }
            if let b = step.newBaudRate { try follow(port, baud: b) }
        }
        return applied
    }

    private func follow(_ port: SerialPort, baud: Int) throws(ReceiverConfigurationError) {
        // Let the UART finish sending at the old rate before switching.
        _ = clinux_sleep_ns(50_000_000)
        do { try port.setBaudRate(baud) } catch { throw .io(error) }
    }

    private func confirm(_ port: SerialPort, _ passthrough: (SerialChunk) -> Void) throws(ReceiverConfigurationError) -> Bool? {
        do { _ = try identify(port, passthrough: passthrough); return true } catch .noAnswer { return nil }
    }

    private func send(_ bytes: [UInt8], _ port: SerialPort) throws(ReceiverConfigurationError) {
        let n: Int
        do { n = try port.write(bytes) } catch { throw .io(error) }
        guard n == bytes.count else {
            throw .io(SystemError("write", path: port.path, errno: EAGAIN))
        }
    }

    /// Reads until `match` accepts a UBX frame or `milliseconds` pass; every chunk also goes to `passthrough`.
    private func waitFor(_ port: SerialPort, milliseconds: Int, passthrough: (SerialChunk) -> Void,
                       _ match: (UBXFrame) -> Bool) throws(ReceiverConfigurationError) {
        let framer = MixedStreamFramer()
        let deadline = clinux_monotonic_ns() + Int64(milliseconds) * 1_000_000
        var done = false
        while !done {
            let left = (deadline - clinux_monotonic_ns()) / 1_000_000
            if left <= 0 { return }
            let result: SerialReadResult
            do { result = try port.read(timeoutMilliseconds: Int(min(left, Int64(pollMilliseconds)))) } catch { throw .io(error) }
            switch result {
            case .chunk(let chunk):
                passthrough(chunk)
                framer.feed(chunk.bytes) { frame in
                    if !done, case .ubx(let f) = frame, match(f) { done = true }
                }
            case .hungUp: throw .hungUp(path: port.path)
            case .timedOut: break
            }
        }
    }
}
