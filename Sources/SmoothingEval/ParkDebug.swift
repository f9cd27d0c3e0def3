import Estimation
import Foundation
import LocationCore

/// PARK=1: where in the truth's stops the smoothed output draws its parked path (per 180 s stopped): each stop's
/// steps 1–5 (the braking into it), later steps while held (jumps of the hold) and later steps not held (the stop
/// ended early), and the settled parked path (after each stop's first 5 s). PARKJ=<row name>: every step of that row's
/// stops that moves the output, with its time, the output's accuracy and speed.
func parkDebug(_ name: String, _ sm: [Location], _ truth: [Location]) {
    let sortedTruth = SmoothingEvaluation.truthWithMotion(truth)
    var byKey: [Int64: Location] = [:]
    for t in sortedTruth { byKey[SmoothingEvaluation.key(t.time!)] = t }
    let segs = SmoothingEvaluation.stoppedRuns(sm, truth: byKey, stopped: SmoothingEvaluation.stoppedEpochs(sortedTruth))
    var byStep = [Double](repeating: 0, count: 6)
    var laterHeld = 0.0, laterMoving = 0.0, laterHeldJumps = 0, laterMovingSteps = 0, secs = 0.0
    let listed = ProcessInfo.processInfo.environment["PARKJ"] == name
    for s in segs where s.count >= 2 {
        let t0 = s[0].time!.secondsSince1970
        secs += s.last!.time!.secondsSince1970 - t0
        for j in 1..<s.count {
            let d = LocalTangentFrame.distanceMeters(s[j - 1].latitudeDegrees!, s[j - 1].longitudeDegrees!,
                                                     s[j].latitudeDegrees!, s[j].longitudeDegrees!)
            if listed, d > 0.001 {
                let t = s[j].time!.secondsSince1970
                print("  \(t) step \(j) t+\(f(t - t0)) d \(f(d)) held \(s[j].isStationary == true) acc \(f(s[j].horizontalAccuracyMeters ?? .nan)) speed \(f(s[j].speedMetersPerSecond ?? .nan))")
            }
            if j <= 5 { byStep[j] += d } else if s[j].isStationary == true {
                laterHeld += d; if d > 0.001 { laterHeldJumps += 1 }
            } else { laterMoving += d; laterMovingSteps += 1 }
        }
    }
    func p(_ x: Double) -> String { f(x / secs * 180) }
    print("PARK \(name): \(segs.count) stops, mean \(f(secs / Double(max(1, segs.count)))) s; per 180 s: steps 1…5 \((1...5).map { p(byStep[$0]) }.joined(separator: " ")), later held \(p(laterHeld)) (\(laterHeldJumps) jumps), later not held \(p(laterMoving)) (\(laterMovingSteps) steps)")
}
