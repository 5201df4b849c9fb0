/// An owner that is released while its child still refers to it.
public final class UnownedOwner {
  public var name = "owner"
  public init() {}
}

/// Keeps an `unowned` reference to an owner that does not keep it: once the owner is gone, reading
/// `owner` crashes.
public final class UnownedChild {
  public unowned let owner: UnownedOwner
  public init(owner: UnownedOwner) { self.owner = owner }
}

extension Sample {
  static let danglingUnowned = Sample(
    name: "dangling-unowned",
    summary: "a child whose unowned owner was already released: a crash waiting to happen",
    hasCycle: false
  ) {
    let child = UnownedChild(owner: UnownedOwner())
    return SampleInstance(root: child, objects: [child])
  }
}
