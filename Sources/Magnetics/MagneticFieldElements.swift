/// The geomagnetic field at one place and time, in NOAA's seven elements plus grid variation, with their rates of
/// change. Axes are geodetic: X north, Y east, Z down (nadir), on the WGS84 ellipsoid's local vertical.
public struct MagneticFieldElements: Sendable, Hashable {
    /// D: angle from true north to the horizontal field, east positive, (−180, 180].
    public var declinationDegrees: Double
    /// I (dip): angle from the horizontal plane to the field, down positive, [−90, 90].
    public var inclinationDegrees: Double
    /// H = √(X² + Y²).
    public var horizontalNanotesla: Double
    /// X, northward component.
    public var northNanotesla: Double
    /// Y, eastward component.
    public var eastNanotesla: Double
    /// Z, downward component.
    public var downNanotesla: Double
    /// F = √(H² + Z²).
    public var totalNanotesla: Double
    /// GV, grid variation: the angle from grid north of the polar stereographic grids to magnetic north.
    /// NOAA's definition: D − λ north of 55° N, D + λ south of 55° S, wrapped to [−180, 180]; nil between.
    public var gridVariationDegrees: Double?
    /// Rates of change per year (secular variation).
    public var secularVariation: MagneticFieldSecularVariation
    /// H < 2000 nT: the compass is unreliable (NOAA's blackout zone, near the magnetic poles).
    public var blackout: Bool
    /// H < 6000 nT: the compass may be degraded (NOAA's caution zone). Also true inside the blackout zone.
    public var caution: Bool
    /// The date is outside the model's validity window (2025.0 … 2030.0 for WMM2025): values are extrapolated.
    public var outsideValidity: Bool

    public init(declinationDegrees: Double, inclinationDegrees: Double, horizontalNanotesla: Double,
                northNanotesla: Double, eastNanotesla: Double, downNanotesla: Double, totalNanotesla: Double,
                gridVariationDegrees: Double?, secularVariation: MagneticFieldSecularVariation,
                blackout: Bool, caution: Bool, outsideValidity: Bool) {
        self.declinationDegrees = declinationDegrees; self.inclinationDegrees = inclinationDegrees
        self.horizontalNanotesla = horizontalNanotesla; self.northNanotesla = northNanotesla
        self.eastNanotesla = eastNanotesla; self.downNanotesla = downNanotesla; self.totalNanotesla = totalNanotesla
        self.gridVariationDegrees = gridVariationDegrees; self.secularVariation = secularVariation
        self.blackout = blackout; self.caution = caution; self.outsideValidity = outsideValidity
    }

    /// The horizontal field below which a compass heading is unreliable (NOAA's blackout zone).
    public static let blackoutHorizontalNanotesla = 2000.0
    /// The horizontal field below which compass headings need caution (NOAA's caution zone).
    public static let cautionHorizontalNanotesla = 6000.0
}

/// Time derivatives of the elements, per year, as NOAA defines them (WMM report eq. 20–21):
/// Ḣ = (X Ẋ + Y Ẏ) / H, Ḟ = (X Ẋ + Y Ẏ + Z Ż) / F, Ḋ = (X Ẏ − Y Ẋ) / H², İ = (H Ż − Z Ḣ) / F², ĠV = Ḋ.
public struct MagneticFieldSecularVariation: Sendable, Hashable {
    public var declinationDegreesPerYear: Double
    public var inclinationDegreesPerYear: Double
    public var horizontalNanoteslaPerYear: Double
    public var northNanoteslaPerYear: Double
    public var eastNanoteslaPerYear: Double
    public var downNanoteslaPerYear: Double
    public var totalNanoteslaPerYear: Double
    /// Equal to the declination's rate where grid variation is defined (|latitude| ≥ 55°), else nil.
    public var gridVariationDegreesPerYear: Double?

    public init(declinationDegreesPerYear: Double, inclinationDegreesPerYear: Double, horizontalNanoteslaPerYear: Double,
                northNanoteslaPerYear: Double, eastNanoteslaPerYear: Double, downNanoteslaPerYear: Double,
                totalNanoteslaPerYear: Double, gridVariationDegreesPerYear: Double?) {
        self.declinationDegreesPerYear = declinationDegreesPerYear; self.inclinationDegreesPerYear = inclinationDegreesPerYear
        self.horizontalNanoteslaPerYear = horizontalNanoteslaPerYear; self.northNanoteslaPerYear = northNanoteslaPerYear
        self.eastNanoteslaPerYear = eastNanoteslaPerYear; self.downNanoteslaPerYear = downNanoteslaPerYear
        self.totalNanoteslaPerYear = totalNanoteslaPerYear; self.gridVariationDegreesPerYear = gridVariationDegreesPerYear
    }
}
