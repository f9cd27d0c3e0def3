// Magnetics: World Magnetic Model, calibration, heading (see docs/magnetics.md).
