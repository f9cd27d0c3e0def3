import LocationCore

extension PositionSmoother {
    /// The receiver's clock jumped (a reset, a week-rollover bug, a looping test feed): keep the position, the
    /// velocity and everything learned about the receiver's noise, and continue on the new time base from `t`.
    /// Inertial integration since the last fix is dropped (it was measured against the old time base), and the
    /// position and velocity uncertainties are opened by what the gap between the two time bases may have hidden.
    public mutating func rebaseTime(to t: Timestamp) {
        guard let old = time else { return }
        // What is timed in the old base moves with it (a stop's start, a suspended stop's, the creep's clocks).
        let shift = t.nanosecondsSince1970 &- old.nanosecondsSince1970
        func moved(_ x: Timestamp?) -> Timestamp? { x.map { $0.adding(nanoseconds: shift) } }
        stopStart = moved(stopStart)
        if var sus = suspendedStop {
            sus.start = moved(sus.start)
            sus.since = sus.since.adding(nanoseconds: shift)
            suspendedStop = sus
        }
        stopCreep.rebaseTime(by: shift)
        errorStructure.rebaseTime(to: Double(t.nanosecondsSince1970) / 1e9)
        lastDoppler = nil
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
