internal import RetainGraph

/// How many instances of a type may survive each run of a scenario in `assertNoGrowth`: for a
/// cache or a pool that grows up to a bound on purpose.
///
/// ```swift
/// assertNoGrowth(of: gallery, allowing: [.type(ImageCache.self, survivors: 0...3)]) { $0.reload() }
/// assertNoGrowth(of: feed, allowing: [.closures(named: "Feed.prefetch", survivors: 0...2)]) { $0.reload() }
/// ```
public struct GrowthAllowance: @unchecked Sendable {
  // A metatype is immutable and safe to share; `any Any.Type` is not marked Sendable.
  let type: (any Any.Type)?
  /// For closure contexts: text their name must contain (empty: every closure context).
  let closureName: String?
  let survivors: ClosedRange<Int>

  /// Allows instances of `type` (and its subclasses) to number anywhere in `survivors` after each run
  /// instead of requiring that they do not grow.
  /// - Parameters:
  ///   - type: the type, e.g. `ImageCache.self`.
  ///   - survivors: how many instances may be alive after a run, e.g. `0...3`.
  /// - Returns: the allowance.
  public static func type(_ type: any Any.Type, survivors: ClosedRange<Int>) -> GrowthAllowance {
    GrowthAllowance(type: type, closureName: nil, survivors: survivors)
  }

  /// Allows closure contexts whose name contains `name` to number anywhere in `survivors` after each
  /// run. A closure context is counted under the function it runs when the runtime names it
  /// (`closure #1 in App.Feed.prefetch()`), otherwise under where it is stored
  /// (`closure at Feed.handlers[0]`): those are the names the failure message shows.
  /// - Parameters:
  ///   - name: text the closure's name contains, e.g. `"Feed.prefetch"`; `""` allows every closure.
  ///   - survivors: how many such closure contexts may be alive after a run, e.g. `0...2`.
  /// - Returns: the allowance.
  public static func closures(named name: String, survivors: ClosedRange<Int>) -> GrowthAllowance {
    GrowthAllowance(type: nil, closureName: name, survivors: survivors)
  }

  /// Whether the allowance covers `node`, whose object (nil when the walk kept none) is `object`.
  func matches(_ node: Node, object: AnyObject?) -> Bool {
    if let closureName {
      return node.kind == .closure && (closureName.isEmpty || node.typeName.contains(closureName))
    }
    guard node.kind == .object, let object else { return false }
    return matches(object)
  }

  /// Whether the allowance covers `object` by its class (closure allowances cover no object).
  func matches(_ object: AnyObject) -> Bool {
    guard let type else { return false }
    var current: AnyClass? = Swift.type(of: object)
    while let candidate = current {
      if ObjectIdentifier(candidate) == ObjectIdentifier(type) { return true }
      current = _getSuperclass(candidate)
    }
    return false
  }
}
