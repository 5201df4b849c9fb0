/// An `unowned` reference whose object was already deinitialised: reading it traps.
///
/// RetainGraph finds these without reading them, and reports each one: it is a crash waiting to
/// happen.
public struct DanglingReference: Sendable, Hashable {
  /// The node that holds the reference.
  public var holder: Node.ID
  /// The path from the holder to the reference (`parent`, `owner.delegate`).
  public var label: String

  /// Creates a dangling-reference finding.
  public init(holder: Node.ID, label: String) {
    self.holder = holder
    self.label = label
  }
}
