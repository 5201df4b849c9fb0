internal import RetainGraph

/// How many instances of a type may survive each run of a scenario in `assertNoGrowth`: for a
/// cache or a pool that grows up to a bound on purpose.
///
/// ```swift
/// assertNoGrowth(of: gallery, allowing: [.type(ImageCache.self, survivors: 0...3)]) { $0.reload() }
/// assertNoGrowth(of: feed, allowing: [.closures(named: "Feed.prefetch", survivors: 0...2)]) { $0.reload() }
/// assertNoGrowth(of: app, allowing: [.property("AppCoordinator.children", survivors: 0...10)]) { $0.run() }
/// ```
public struct GrowthAllowance: @unchecked Sendable {
  // A metatype is immutable and safe to share; `any Any.Type` is not marked Sendable.
  let type: (any Any.Type)?
  /// For closure contexts: text their name must contain (empty: every closure context).
  let closureName: String?
  /// For a holder's stored property: `Holder.property`, by the holder's short or full type name.
  let property: String?
  let survivors: ClosedRange<Int>

  /// Allows instances of `type` (and its subclasses) to number anywhere in `survivors` after each run
  /// instead of requiring that they do not grow.
  /// - Parameters:
  ///   - type: the type, e.g. `ImageCache.self`.
  ///   - survivors: how many instances may be alive after a run, e.g. `0...3`.
  /// - Returns: the allowance.
  public static func type(_ type: any Any.Type, survivors: ClosedRange<Int>) -> GrowthAllowance {
    GrowthAllowance(type: type, closureName: nil, property: nil, survivors: survivors)
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
    GrowthAllowance(type: nil, closureName: name, property: nil, survivors: survivors)
  }

  /// Allows a holder's stored property to hold anywhere in `survivors` objects and closures after
  /// each run: what it holds, and everything first reached through it, is not judged by type.
  ///
  /// The property is named as the failure message's holder lines name it, `Holder.property`, with the
  /// holder's short type name (`AppCoordinator.children`) or its full one (`App.AppCoordinator.children`).
  /// What the property holds is counted wherever the walk from the root first reaches it through that
  /// property, in any instance of the holder's type. The census variant (`assertNoGrowth(iterations:_:)`
  /// without a root) has no holders and ignores these allowances.
  /// - Parameters:
  ///   - property: `Holder.property`, e.g. `"AppCoordinator.children"`.
  ///   - survivors: how many objects and closures the property may hold after a run, e.g. `0...10`.
  /// - Returns: the allowance.
  public static func property(_ property: String, survivors: ClosedRange<Int>) -> GrowthAllowance {
    GrowthAllowance(type: nil, closureName: nil, property: property, survivors: survivors)
  }

  /// Whether the allowance covers the reference `edge` of `graph` (only property allowances do).
  func matches(_ edge: Edge, in graph: ObjectGraph) -> Bool {
    guard let property, let held = edge.property else { return false }
    let holder = graph.node(edge.from)
    return property == "\(holder.shortTypeName).\(held)" || property == "\(holder.typeName).\(held)"
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
