import LocationCore

extension PositionSmoother {
    /// The receiver's clock jumped (a reset, a week-rollover bug, a looping test feed): keep the position, the
    /// velocity and everything learned about the receiver's noise, and continue on the new time base from `t`.
    /// Inertial integration since the last fix is dropped (it was measured against the old time base), and the
    /// position and velocity uncertainties are opened by what the gap between the two time bases may have hidden.
    public mutating func rebaseTime(to t: Timestamp) {
        guard time != nil else { return }
        time = t
        lastFixWasLeapSecond = false
        resetInertialIntegration()
        gyroCoveredUntil = nil
        accelerationTime = nil
        lowSpeedSince = nil
        lastReportedSpeed = .nan
        recentSpeedMean = .nan
        recentVelocityCount = 0
        positionWindowBox?.value.clear()
        // Motion during the jump is unknown: open position and velocity as on leaving a stop.
        kf[0, 0] += 1; kf[1, 1] += 1
        kf[2, 2] += 4; kf[3, 3] += 4
        kf.pt[0 * 6 + 0] += 1; kf.pt[1 * 6 + 1] += 1
        kf.pt[2 * 6 + 2] += 4; kf.pt[3 * 6 + 3] += 4
    }
}
