/// Corrections for kernel IIO drivers whose scale does not follow the ABI's unit.
///
/// - `hmc5843`, `hmc5883`, `hmc5883l`, `hmc5983` (drivers/iio/magnetometer/hmc5843_core.c): the scale tables hold
///   "10000000/Gain" with the gain in counts per gauss, reported as IIO_VAL_INT_PLUS_NANO — 0.000009174 for the
///   HMC5883L's 1090 counts/G, which is 1/100 of gauss per count. Found in `make hil` on Debian's 6.1 kernel: the
///   registers held 545 counts (50 µT at 1090 counts/G) and the ABI reading gave 0.5 µT. Lodestar multiplies by 100.
enum IIOScaleQuirks {
    static func factor(deviceName: String?, type: IIOChannelType) -> Double {
        guard type == .magn, let name = deviceName else { return 1 }
        return ["hmc5843", "hmc5883", "hmc5883l", "hmc5983"].contains(name) ? 100 : 1
    }
}
