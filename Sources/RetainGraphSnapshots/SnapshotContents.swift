package import RetainGraphSupport

/// A snapshot as read and checked: every field present and of its type, every id naming a node.
/// The core makes the graph of it (its labels, edges and notes as the core's values).
package struct SnapshotContents {
  /// 1 or 2: how the edges' labels read.
  package let version: Int
  package let root: Int
  package let truncated: Bool
  /// Every string of the text, by its id (labels, properties, methods, functions).
  package let strings: JSONStringTable
  /// The nodes' type names, interned in id order.
  package let typeNames: [String]
  /// Per node in id order, its type name's index in ``typeNames``.
  package let nodeTypes: [Int32]
  /// Per node in id order, its kind's code in ``SnapshotFormat/nodeKinds``.
  package let nodeKinds: [UInt8]
  /// The distinct labels, in the order of their first edge.
  package let labels: [SnapshotLabel]
  package let edges: ChunkedArray<SnapshotEdge>
  package let dangling: [SnapshotDangling]
  /// The `notes` sentences.
  package let notes: [String]
  /// The notes as values (`noteDetails`), nil when the text has none.
  package let noteDetails: [SnapshotNote]?
  package let sourceLocations: [SnapshotLocation]
}

/// A dangling `unowned` reference: its holder and its label.
package struct SnapshotDangling: Sendable {
  package let holder: Int
  package let label: String
}

/// A note as a value (`noteDetails`): its kind's name, the node it is about, the type, the sentence.
package struct SnapshotNote: Sendable {
  package let kind: String
  package let node: Int?
  package let typeName: String
  package let description: String
}

/// Where a fix's declaration is written: its key (`property App.Interactor.output`,
/// `closure closure #1 in App.Screen.init()`), file, line and column.
package struct SnapshotLocation: Sendable {
  package let declaration: String
  package let file: String
  package let line: Int
  package let column: Int?
}
