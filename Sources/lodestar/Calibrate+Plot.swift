import Magnetics
import Maps

/// `lodestar calibrate --plot FILE` (the drawing is Maps.CalibrationPlot).
func writeCalibrationPlot(_ path: String, collector: CalibrationCollector, result: CalibrationResult, source: String) throws {
    var plot = CalibrationPlot(rawSamples: collector.samples, result: result, bins: collector.directionCells,
                               occupancy: collector.occupancy)
    plot.title = "Magnetometer calibration of \(source)"
    try writeWholeFile(path, plot.svg())
}
