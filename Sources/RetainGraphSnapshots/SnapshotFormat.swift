/// The snapshot format's name, the version written, the versions read (version 1 has no edge
/// `kind`, `capture`, `method` or `property`), and the names it gives node kinds, ownerships and
/// edge kinds: the raw values of the core's `Node.Kind`, `Ownership` and `Edge.Kind`'s JSON names,
/// in their declaration order (a core test holds them equal).
package enum SnapshotFormat {
  package static let formatName = "retain-graph"
  package static let version = 2
  package static let readableVersions = 1...2

  /// Node kinds, by their code in ``SnapshotContents/nodeKinds``.
  package static let nodeKinds = ["object", "closure", "value", "task"]
  /// Ownerships, by their code in ``SnapshotEdge/ownership`` (strong is 0).
  package static let ownerships = ["strong", "weak", "unowned", "unowned(unsafe)"]
  /// Edge kinds, by their index in ``SnapshotLabel/kind``.
  package static let edgeKinds = [
    "property", "enumPayload", "element", "closure", "singleCapture", "methodReference", "capture", "global",
    "suspendedFrame", "actorIsolation",
  ]

  static let nodeKindBytes = nodeKinds.map { Array($0.utf8) }
  static let ownershipBytes = ownerships.map { Array($0.utf8) }
  static let edgeKindBytes = edgeKinds.map { Array($0.utf8) }

  /// The index in `names` of the name `bytes` spell.
  static func index(of bytes: UnsafeBufferPointer<UInt8>, in names: [[UInt8]]) -> Int8? {
    for (index, name) in names.enumerated() where name.elementsEqual(bytes) { return Int8(index) }
    return nil
  }

  /// `"a", "b", "c"`: the names a message lists as expected.
  static func listed(_ names: [String]) -> String { names.map { "\"\($0)\"" }.joined(separator: ", ") }
}
