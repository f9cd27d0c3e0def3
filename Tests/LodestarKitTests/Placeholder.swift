import Testing
import LodestarKit
@Test func LodestarKitBuilds() { #expect(Bool(true)) }
