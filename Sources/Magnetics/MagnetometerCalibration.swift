import LocationCore

/// Hard- and soft-iron correction of a magnetometer: calibrated = softIron × (raw − hardIron), in µT.
/// Shared by the calibration fit, the heading estimator, calibration files and captures.
public struct MagnetometerCalibration: Sendable, Hashable {
    /// Hard-iron offset (µT), in the sensor frame.
    public var hardIronMicrotesla: Vector3
    /// Soft-iron correction (unitless), maps the offset-free ellipsoid onto a sphere.
    public var softIron: Matrix3
    /// The field strength the fit saw (µT): the sphere radius after correction.
    public var fieldMicrotesla: Double?

    public init(hardIronMicrotesla: Vector3 = .zero, softIron: Matrix3 = .identity, fieldMicrotesla: Double? = nil) {
        self.hardIronMicrotesla = hardIronMicrotesla
        self.softIron = softIron
        self.fieldMicrotesla = fieldMicrotesla
    }

    public static let identity = MagnetometerCalibration()

    @inlinable
    public func apply(_ rawMicrotesla: Vector3) -> Vector3 { softIron * (rawMicrotesla - hardIronMicrotesla) }
}
