/// How many instances of a type may survive each run of a scenario in `assertNoGrowth`: for a
/// cache or a pool that grows up to a bound on purpose.
///
/// ```swift
/// assertNoGrowth(of: gallery, allowing: [.type(ImageCache.self, survivors: 0...3)]) { $0.reload() }
/// ```
public struct GrowthAllowance: @unchecked Sendable {
  // A metatype is immutable and safe to share; `any Any.Type` is not marked Sendable.
  let type: any Any.Type
  let survivors: ClosedRange<Int>

  /// Allows instances of `type` (and its subclasses) to number anywhere in `survivors` after each run
  /// instead of requiring that they do not grow.
  /// - Parameters:
  ///   - type: the type, e.g. `ImageCache.self`.
  ///   - survivors: how many instances may be alive after a run, e.g. `0...3`.
  /// - Returns: the allowance.
  public static func type(_ type: any Any.Type, survivors: ClosedRange<Int>) -> GrowthAllowance {
    GrowthAllowance(type: type, survivors: survivors)
  }

  func matches(_ object: AnyObject) -> Bool {
    var current: AnyClass? = Swift.type(of: object)
    while let candidate = current {
      if ObjectIdentifier(candidate) == ObjectIdentifier(type) { return true }
      current = _getSuperclass(candidate)
    }
    return false
  }
}
