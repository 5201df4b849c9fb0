/// `A.b` ↔ `B.a`: the smallest retain cycle.
public final class CycleA {
  public var b: CycleB?
  public init() {}
}

/// The other half of ``CycleA``'s cycle.
public final class CycleB {
  public var a: CycleA?
  public init() {}
}

extension Sample {
  static let retainCycle = Sample(
    name: "retain-cycle", summary: "A.b and B.a hold each other strongly: a cycle of two", hasCycle: true
  ) {
    let a = CycleA()
    let b = CycleB()
    a.b = b
    b.a = a
    return SampleInstance(root: a, objects: [a, b]) { [weak b] in b?.a = nil }
  }
}
