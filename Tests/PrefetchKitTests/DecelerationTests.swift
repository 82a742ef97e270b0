import Foundation
import Testing
import PrefetchKit

// UIKit's deceleration model, the one copy every module calls (issue #25): its constants, the
// forms that replaced the former copies (same Doubles), and the curve's pieces agreeing.

@Suite("Deceleration")
struct DecelerationTests {
    @Test func uikitsRatesAndTheirForwards() {
        #expect(Deceleration.normalRate == 0.998)
        #expect(Deceleration.fastRate == 0.99)
        #expect(Deceleration.restingSpeed == 1)
        #expect(ScrollTranslation.normalDecelerationRate == Deceleration.normalRate)
        #expect(Deceleration.isValid(rate: 0.5))
        for bad in [0, 1, -0.5, 1.5, .nan, .infinity] { #expect(!Deceleration.isValid(rate: bad)) }
    }

    @Test func theFormsOfTheFormerCopiesGiveTheSameDoubles() {
        // The copies wrote the resting distance with the minus sign in three places; IEEE
        // negation is exact, so all three are one Double.
        var random = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let rate = Double.random(in: 0.9..<1, using: &random)
            let velocity = Double.random(in: -20_000...20_000, using: &random)
            let offset = Double.random(in: -1_000...100_000, using: &random)
            let rest = Deceleration.restingOffset(from: offset, velocity: velocity, rate: rate)
            #expect(rest.bitPattern == (offset - velocity / 1000 / log(rate)).bitPattern)
            #expect(Deceleration.restingDistance(from: velocity, rate: rate).bitPattern == (-velocity / 1000 / log(rate)).bitPattern)
        }
    }

    @Test func thePiecesOfTheCurveAgree() {
        let rate = Deceleration.normalRate, velocity = 6_006.0, start = 1_000.0
        let decay = Deceleration.decayConstant(rate: rate)
        let rest = Deceleration.restingOffset(from: start, velocity: velocity, rate: rate)
        #expect(abs(rest - 4_000) < 1)
        // rate^ms from the release and e^(k·t) from the rest are one curve.
        for ms in [0.0, 16.7, 250, 1_000, 3_000] {
            let byPower = start + Deceleration.distance(from: velocity, afterMilliseconds: ms, rate: rate)
            let byExp = Deceleration.offset(after: ms / 1000, from: start, restingAt: rest, decay: decay)
            #expect(abs(byPower - byExp) < 1e-6)
            // The speed is proportional to the way left.
            let speed = Deceleration.velocity(from: velocity, afterMilliseconds: ms, rate: rate)
            #expect(abs(Deceleration.speed(remainingDistance: rest - byExp, decay: decay) - speed) < 1e-6)
            #expect(Deceleration.retainedFraction(afterMilliseconds: ms, rate: rate) == pow(rate, ms))
        }
        // Time along the curve inverts the offset.
        let t = Deceleration.elapsed(toCover: 0.75, decay: decay)
        #expect(abs(Deceleration.offset(after: t, from: start, restingAt: rest, decay: decay) - (start + 0.75 * (rest - start))) < 1e-6)
        // The view stops where its speed falls to the resting speed.
        #expect(abs(Deceleration.speed(remainingDistance: Deceleration.stoppingDistance(decay: decay), decay: decay) - Deceleration.restingSpeed) < 1e-12)
        // A release velocity that rests `distance` further on.
        #expect(abs(Deceleration.releaseVelocity(restingAfter: rest - start, rate: rate) - velocity) < 1e-9)
    }

    @Test func speedsFromAMeanOverAnInterval() {
        let rate = Deceleration.normalRate, velocity = 3_000.0, ms = 33.3
        let travelled = Deceleration.distance(from: velocity, afterMilliseconds: ms, rate: rate)
        let mean = travelled / (ms / 1000)
        #expect(abs(Deceleration.initialSpeed(fromMeanSpeed: mean, overMilliseconds: ms, rate: rate) - velocity) < 1e-6)
        let end = Deceleration.velocity(from: velocity, afterMilliseconds: ms, rate: rate)
        let factor = Deceleration.finalSpeedFactor(overSeconds: ms / 1000, rate: rate)
        #expect(factor < 1)
        #expect(abs(mean * factor - end) < 1e-6)
        #expect(!Deceleration.finalSpeedFactor(overSeconds: 0, rate: rate).isFinite)
    }
}
