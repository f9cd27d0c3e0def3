import LocationCore

extension Location {
    /// The fix as a receiver that sends no speed and course (GGA alone) would give it: speed, course and their
    /// accuracies removed. (SmoothingEval's NOSPEED and the tests of stops found from the positions.)
    public var withoutVelocity: Location {
        var f = self
        f.speedMetersPerSecond = nil; f.courseDegrees = nil
        f.speedAccuracyMetersPerSecond = nil; f.courseAccuracyDegrees = nil
        return f
    }
}
