/// SplitMix64 (Steele, Lea, Flood 2014), the simulator's only source of randomness so a scenario
/// with a given seed always produces the same frames, on every platform.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// A generator starting from `seed`.
  public init(seed: UInt64) { state = seed }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A value in 0..<bound (bound > 0), by the multiply-high method.
  mutating func below(_ bound: UInt64) -> UInt64 {
    bound == 0 ? 0 : next().multipliedFullWidth(by: bound).high
  }

  /// A uniform Double in [0, 1) from the top 53 bits.
  mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

  /// `count` random bytes.
  mutating func bytes(_ count: Int) -> [UInt8] {
    (0..<count).map { _ in UInt8(truncatingIfNeeded: next() >> 56) }
  }
}
