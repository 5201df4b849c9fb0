/// The delegate a ``DelegateChild`` reports to.
public protocol ChildDelegate: AnyObject {
  func childDidFinish()
}

/// Owns its child strongly and is its delegate.
public final class DelegateParent: ChildDelegate {
  public let child = DelegateChild()
  public init() { child.delegate = self }
  public func childDidFinish() {}
}

/// Holds its delegate weakly, as it should.
public final class DelegateChild {
  public weak var delegate: (any ChildDelegate)?
  public init() {}
}

extension Sample {
  static let delegate = Sample(
    name: "delegate", summary: "parent → child strong, child.delegate weak: no cycle", hasCycle: false
  ) {
    let parent = DelegateParent()
    return SampleInstance(root: parent, objects: [parent, parent.child])
  }
}
