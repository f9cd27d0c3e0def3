import Testing
@testable import UBX

@Suite struct UBXPlaceholderTests {
    @Test func moduleLinks() { _ = UBX.self }
}
