import NIOCore

/// What one client asked for (gpsd's `?WATCH` policy); NMEA-only servers watch NMEA from the start.
struct WatchPolicy: Sendable, Equatable {
    var enable = false
    var json = false
    var nmea = false
    /// gpsd's raw level (1: NMEA as-is, 2: same for NMEA devices); Lodestar sends its NMEA for both.
    var raw = 0
    var scaled = false
    /// Only this device's objects (gpsd's `device` filter); nil: all.
    var device: String?
}

/// One connected client, owned by the server's single event loop: a bounded queue in front of the channel.
/// While the channel is writable (below NIO's high-water mark) output goes straight to it; otherwise it waits here,
/// and past `maximumQueued` the oldest waiting item is dropped and counted — a client that stops reading never
/// holds up the pipeline or the other clients.
final class ClientHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let hub: Hub
    let id: Int
    var policy: WatchPolicy
    private(set) var context: ChannelHandlerContext?
    private var queue = CircularBuffer<ByteBuffer>(initialCapacity: 16)
    private(set) var dropped = 0
    private(set) var sent = 0
    var peer = ""
    private var input: ByteBuffer?
    static let maximumCommandBytes = 8192

    init(hub: Hub, id: Int, policy: WatchPolicy) {
        self.hub = hub; self.id = id; self.policy = policy
    }

    var queued: Int { queue.count }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        peer = context.remoteAddress.map { "\($0)" } ?? ""
    }

    func channelActive(context: ChannelHandlerContext) {
        hub.clientConnected(self)
    }

    func channelInactive(context: ChannelHandlerContext) {
        hub.clientDisconnected(self)
        self.context = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        guard hub.acceptsCommands else { return }  // NMEA servers ignore input
        if input == nil { input = bytes } else { input!.writeBuffer(&bytes) }
        guard var buffer = input else { return }
        // Commands end with ';' or a newline (gpsd accepts both).
        while let end = buffer.readableBytesView.firstIndex(where: { $0 == UInt8(ascii: ";") || $0 == 0x0A }) {
            let length = end - buffer.readerIndex
            let line = buffer.readString(length: length) ?? ""
            buffer.moveReaderIndex(forwardBy: 1)
            let command = line.trimmingWhitespace
            if !command.isEmpty { hub.handleCommand(command, from: self) }
        }
        if buffer.readableBytes > Self.maximumCommandBytes { buffer.clear() }
        buffer.discardReadBytes()
        input = buffer
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        drain()
        context.fireChannelWritabilityChanged()
    }

    /// Whether a write waits for the hub's flush (see `Hub.needsFlush`).
    var awaitsFlush = false

    /// Sends `buffer` at the hub's next flush, or queues it (dropping the oldest queued item when full).
    func offer(_ buffer: ByteBuffer) {
        guard let context else { return }
        if queue.isEmpty && context.channel.isWritable {
            sent += 1
            context.write(wrapOutboundOut(buffer), promise: nil)
            if !awaitsFlush { awaitsFlush = true; hub.needsFlush(self) }
            return
        }
        queue.append(buffer)
        if queue.count > hub.maximumQueued {
            queue.removeFirst()
            dropped += 1
            hub.noteDropped()
        }
    }

    /// A reply to a command: never dropped (the client is reading).
    func reply(_ buffer: ByteBuffer) {
        guard let context else { return }
        if queue.isEmpty {
            context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
        } else {
            queue.append(buffer)
        }
    }

    private func drain() {
        guard let context else { return }
        var wrote = false
        while context.channel.isWritable, let next = queue.popFirst() {
            sent += 1
            context.write(wrapOutboundOut(next), promise: nil)
            wrote = true
        }
        if wrote { context.flush() }
    }

    /// Sends what `offer` wrote (one system call for every event broadcast since the last flush).
    func flush() {
        awaitsFlush = false
        context?.flush()
    }

    func close() { context?.close(promise: nil) }
}

extension CircularBuffer {
    mutating func popFirst() -> Element? { isEmpty ? nil : removeFirst() }
}

extension String {
    var trimmingWhitespace: String {
        var s = Substring(self)
        // Character.isWhitespace covers "\r\n", which Swift treats as one Character.
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
