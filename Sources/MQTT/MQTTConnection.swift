import CMosquitto
#if canImport(Glibc)
import Glibc
#endif
import LodestarIO

/// How to reach and authenticate to a broker (shared by the board's publisher and `lodestar fleet`).
public struct MQTTClientSettings: Sendable {
    public var url: MQTTURL
    /// From `--mqtt-password-file` (never the command line).
    public var password: String?
    /// TLS: the CA file that signs the broker's certificate (default with mqtts://: the system's /etc/ssl/certs).
    public var caFile: String?
    /// TLS client certificate and key (both or neither).
    public var certFile: String?
    public var keyFile: String?
    public var clientID: String
    public var keepaliveSeconds: Int32 = 30
    /// A persistent session (clean_session false): the broker queues QoS 1 messages for us while we are away.
    public var persistentSession = false
    public var will: (topic: String, payload: [UInt8], qos: Int32, retain: Bool)?

    public init(url: MQTTURL, clientID: String) { self.url = url; self.clientID = clientID }

    /// Reads the password: the first line of `path` (without its newline).
    public static func readPasswordFile(_ path: String) throws(MQTTError) -> String {
        let bytes: [UInt8]
        do { bytes = try Syscall.readWholeFile(path) } catch { throw .unreadable(SystemError("open", path: path, error)) }
        let line = bytes.prefix { $0 != 0x0A && $0 != 0x0D }
        guard !line.isEmpty else { throw .passwordFile(path: path, reason: "empty (the first line is the password)") }
        return String(decoding: line, as: UTF8.self)
    }
}

public enum MQTTError: Error, Sendable, CustomStringConvertible {
    case passwordFile(path: String, reason: String)
    /// The password file could not be read (the system's error names the path).
    case unreadable(SystemError)
    case badSettings(String)
    public var description: String {
        switch self {
        case .passwordFile(let p, let r): "--mqtt-password-file \(p): \(r)"
        case .unreadable(let e): "--mqtt-password-file \(e)"
        case .badSettings(let m): m
        }
    }
}

/// One libmosquitto client (one connection attempt; make a new one to reconnect). Used from one thread only:
/// the owner calls `loop` and gets callbacks on that same thread.
public final class MQTTConnection {
    public enum Event {
        case connected
        /// CONNACK refused (bad credentials, not authorised…).
        case refused(code: Int32, reason: String)
        case disconnected(reason: String)
        case published(mid: Int32)
        case message(topic: String, payload: [UInt8], retained: Bool)
        case subscribed(mid: Int32)
    }

    private let mosq: OpaquePointer
    public private(set) var events: [Event] = []
    /// The last error-level lines libmosquitto logged (TLS failures come this way).
    public private(set) var lastLogError: String?

    nonisolated(unsafe) private static var initialised = false

    public init(_ s: MQTTClientSettings) throws(MQTTError) {
        // libmosquitto is loaded on first use (Sources/CMosquitto): boards without MQTT never map it or its TLS libraries.
        guard cmosq_load() == 0 else {
            throw .badSettings("mqtt: libmosquitto cannot be loaded (Debian: apt install libmosquitto1): "
                               + (cmosq_load_error().map { String(cString: $0) } ?? "unknown error"))
        }
        if !Self.initialised { cmosq_lib_init(); Self.initialised = true }
        guard let m = cmosq_new(s.clientID, !s.persistentSession, nil) else {
            throw .badSettings("mqtt: cannot create a client (\(String(cString: strerror(errno))))")
        }
        mosq = m
        cmosq_user_data_set(m, Unmanaged.passUnretained(self).toOpaque())
        cmosq_connect_callback_set(m) { _, obj, rc in
            MQTTConnection.me(obj).events.append(rc == 0 ? .connected : .refused(code: rc, reason: String(cString: cmosq_connack_string(rc))))
        }
        cmosq_disconnect_callback_set(m) { _, obj, rc in
            MQTTConnection.me(obj).events.append(.disconnected(reason: rc == 0 ? "disconnected" : String(cString: cmosq_strerror(rc))))
        }
        cmosq_publish_callback_set(m) { _, obj, mid in MQTTConnection.me(obj).events.append(.published(mid: mid)) }
        cmosq_subscribe_callback_set(m) { _, obj, mid, _, _ in MQTTConnection.me(obj).events.append(.subscribed(mid: mid)) }
        cmosq_message_callback_set(m) { _, obj, msg in
            guard let msg else { return }
            let p = msg.pointee
            let payload = p.payloadlen > 0 && p.payload != nil
                ? Array(UnsafeRawBufferPointer(start: p.payload, count: Int(p.payloadlen))) : []
            MQTTConnection.me(obj).events.append(.message(topic: String(cString: p.topic), payload: payload, retained: p.retain))
        }
        cmosq_log_callback_set(m) { _, obj, level, text in
            guard level == cmosq_LOG_ERR, let text else { return }
            MQTTConnection.me(obj).lastLogError = String(cString: text)
        }
        _ = cmosq_max_inflight_messages_set(m, 0)   // the publisher keeps its own window
        if let user = s.url.username { _ = cmosq_username_pw_set(m, user, s.password) }
        else if s.password != nil { cmosq_destroy(m); throw .badSettings("mqtt: a password file needs a user in the URL (mqtt://USER@host/…)") }
        if let w = s.will {
            _ = w.payload.withUnsafeBytes { cmosq_will_set(m, w.topic, Int32(w.payload.count), $0.baseAddress, w.qos, w.retain) }
        }
        if s.url.useTLS {
            let rc = cmosq_tls_set(m, s.caFile, s.caFile == nil ? "/etc/ssl/certs" : nil, s.certFile, s.keyFile, nil)
            if rc != 0 { cmosq_destroy(m); throw .badSettings("mqtt: TLS settings: \(String(cString: cmosq_strerror(rc)))") }
        } else if s.caFile != nil || s.certFile != nil {
            cmosq_destroy(m); throw .badSettings("mqtt: --mqtt-ca/--mqtt-cert need an mqtts:// URL")
        }
    }

    deinit { cmosq_destroy(mosq) }

    private static func me(_ obj: UnsafeMutableRawPointer?) -> MQTTConnection {
        Unmanaged<MQTTConnection>.fromOpaque(obj!).takeUnretainedValue()
    }

    /// Starts the connection (TCP, then TLS; CONNACK arrives through `loop`). Returns an error text or nil.
    public func connect(host: String, port: Int, keepaliveSeconds: Int32) -> String? {
        let rc = cmosq_connect(mosq, host, Int32(port), keepaliveSeconds)
        if rc == 0 { return nil }
        return describe(rc)
    }

    /// Reads and writes for up to `timeoutMilliseconds`; callbacks land in `events`. Returns an error text or nil.
    public func loop(timeoutMilliseconds: Int32) -> String? {
        let rc = cmosq_loop(mosq, timeoutMilliseconds, 1)
        return rc == 0 ? nil : describe(rc)
    }

    public func takeEvents() -> [Event] {
        let e = events
        events.removeAll(keepingCapacity: true)
        return e
    }

    /// Queues a publish; returns its message id or an error text.
    public func publish(topic: String, payload: [UInt8], qos: Int32, retain: Bool) -> Result<Int32, PublishError> {
        var mid: Int32 = 0
        let rc = payload.withUnsafeBytes { cmosq_publish(mosq, &mid, topic, Int32($0.count), $0.baseAddress, qos, retain) }
        return rc == 0 ? .success(mid) : .failure(PublishError(text: describe(rc)))
    }

    public struct PublishError: Error { public var text: String }

    public func subscribe(_ pattern: String, qos: Int32) -> String? {
        var mid: Int32 = 0
        let rc = cmosq_subscribe(mosq, &mid, pattern, qos)
        return rc == 0 ? nil : describe(rc)
    }

    public func disconnect() { _ = cmosq_disconnect(mosq) }

    private func describe(_ rc: Int32) -> String {
        var text = String(cString: cmosq_strerror(rc))
        if rc == cmosq_ERR_ERRNO { text = String(cString: strerror(errno)) }
        if rc == cmosq_ERR_TLS, let log = lastLogError { text += ": " + log }
        return text
    }
}
