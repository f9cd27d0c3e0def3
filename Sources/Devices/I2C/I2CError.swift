#if canImport(Glibc)
import Glibc
#endif

/// A failed I2C bus open or transaction, typed by what the caller can do about it.
///
/// Linux adapter drivers report the same fault with different errno values (the kernel's
/// Documentation/i2c/fault-codes.rst): a NACK of the address is ENXIO in most drivers, EREMOTEIO in
/// i2c-bcm2835 (Raspberry Pi) and a few others, ENODEV in some; arbitration loss is EAGAIN. `init(errno:…)`
/// folds them into these cases.
public enum I2CError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No acknowledge from the address (ENXIO, EREMOTEIO, ENODEV): nothing there, or the device stopped answering.
    case nack(address: UInt16)
    /// EIO: the adapter saw a bus error (glitch, a device holding SDA, a NACK in the middle of a transfer).
    case io(address: UInt16)
    /// EBUSY/EAGAIN: the bus was busy too long or arbitration was lost to another master.
    case busy(address: UInt16)
    /// ETIMEDOUT: the transfer did not finish in time (a device stretching SCL or holding SDA low).
    case timeout(address: UInt16)
    /// EOPNOTSUPP: the adapter cannot do this kind of transfer (no I2C_FUNC_I2C: SMBus-only controller).
    case unsupported(address: UInt16)
    /// EACCES/EPERM opening the bus device.
    case permissionDenied(path: String)
    /// ENOENT/ENODEV/ENXIO opening the bus device: no such bus.
    case noSuchBus(path: String)
    /// The device answered but is not what was expected (ID register, short read).
    case unexpectedDevice(address: UInt16, detail: String)
    /// Any other errno.
    case other(errno: Int32, operation: String)

    /// From an errno of a transaction with the device at `address`.
    public init(errno: Int32, address: UInt16, operation: String) {
        switch errno {
        case ENXIO, EREMOTEIO, ENODEV: self = .nack(address: address)
        case EIO: self = .io(address: address)
        case EBUSY, EAGAIN: self = .busy(address: address)
        case ETIMEDOUT: self = .timeout(address: address)
        case EOPNOTSUPP: self = .unsupported(address: address)
        default: self = .other(errno: errno, operation: operation)
        }
    }

    /// From an errno of opening the bus device `path`.
    public static func opening(path: String, errno: Int32) -> I2CError {
        switch errno {
        case ENOENT, ENODEV, ENXIO: .noSuchBus(path: path)
        case EACCES, EPERM: .permissionDenied(path: path)
        default: .other(errno: errno, operation: "open \(path)")
        }
    }

    /// The device address involved, when the error is about one device.
    public var address: UInt16? {
        switch self {
        case .nack(let a), .io(let a), .busy(let a), .timeout(let a), .unsupported(let a), .unexpectedDevice(let a, _): a
        case .permissionDenied, .noSuchBus, .other: nil
        }
    }

    public var description: String {
        switch self {
        case .nack(let a):
            "no acknowledge from \(hexAddress(a)) (NACK): no device there, or it stopped answering; check wiring, "
                + "power and the address (i2cdetect -y BUS)"
        case .io(let a):
            "I/O error talking to \(hexAddress(a)) (EIO): a bus glitch, or a device holding the bus"
        case .busy(let a):
            "bus busy or arbitration lost talking to \(hexAddress(a)) (EBUSY/EAGAIN): another master is using the bus"
        case .timeout(let a):
            "transfer to \(hexAddress(a)) timed out (ETIMEDOUT): a device may be stretching the clock or holding SDA low"
        case .unsupported(let a):
            "the adapter cannot do this transfer with \(hexAddress(a)) (EOPNOTSUPP): it has no plain-I2C support "
                + "(I2C_FUNC_I2C) and rejected this SMBus transfer too"
        case .permissionDenied(let path):
            "\(path): permission denied. Add the user to group i2c (sudo usermod -aG i2c $USER, then log in again), "
                + "or install udev/60-lodestar.rules into /etc/udev/rules.d/ and run "
                + "`sudo udevadm control --reload && sudo udevadm trigger`"
        case .noSuchBus(let path):
            "\(path): no such I2C bus. Load i2c-dev (sudo modprobe i2c-dev) and enable the bus "
                + "(Raspberry Pi: dtparam=i2c_arm=on); `ls /dev/i2c-*` lists the buses"
        case .unexpectedDevice(let a, let detail):
            "unexpected device at \(hexAddress(a)): \(detail)"
        case .other(let errno, let operation):
            "\(operation) failed: \(String(cString: strerror(errno)))"
        }
    }
}

/// `0x1e`: the form used in messages and capture headers.
func hexAddress(_ address: UInt16) -> String {
    let digits = String(address, radix: 16)
    return "0x" + (digits.count < 2 ? "0" + digits : digits)
}
