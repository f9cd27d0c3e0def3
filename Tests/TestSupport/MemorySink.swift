import LodestarIO

/// An output sink that collects what the pipeline writes, in memory (one for every test that compares output).
public final class MemorySink: OutputSink {
    public private(set) var bytes: [UInt8] = []
    public init() {}
    public func write(_ b: UnsafeBufferPointer<UInt8>) { bytes += b }
    public func close() {}
    public var isBroken: Bool { false }
    public var droppedLines: Int { 0 }
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
