public import Foundation
internal import RetainGraphFormats

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

extension ObjectGraph {
  /// The graph as JSON (format `retain-graph`, version 2): pretty printed with sorted keys, so the
  /// same graph always gives the same bytes.
  ///
  /// ```json
  /// { "format": "retain-graph", "version": 2, "root": 0, "truncated": false,
  ///   "nodes": [ { "id": 0, "type": "App.Presenter", "kind": "object" } ],
  ///   "edges": [ { "from": 0, "to": 1, "label": "interactor", "ownership": "strong",
  ///                "kind": "property", "property": "interactor" } ] }
  /// ```
  /// Each edge's `kind` is its ``Edge/kind``: `property`, `enumPayload`, `element`, `closure`,
  /// `singleCapture`, `methodReference` (with `method`), `capture` (with `capture`, the index) or
  /// `global` or `suspendedFrame`; `property` is its ``Edge/property``, written when there is one;
  /// `function` is its ``Edge/closureFunction``, written when there is one.
  /// Dangling `unowned` references (`dangling`: `[{"holder", "label"}]`) and `notes` (the sentences
  /// of ``walkNotes`` but the cuts, once each) are written when there are any; `noteDetails` (``walkNotes`` as
  /// `[{"description", "kind", "node", "type"}]`, `node` when known) when they say more than the
  /// sentences. Read it back with ``init(jsonData:)``.
  /// - Returns: UTF-8 JSON, ending with a line feed. Writing cannot fail.
  public func jsonData() -> Data {
    JSONWriter.graph(self)
  }

  /// Reads the JSON written by ``jsonData()`` (format `retain-graph`, version 2, or version 1,
  /// whose edges have no `kind`: each edge's kind and property are then read from its label by that
  /// version's grammar, where `suspended frame` is a ``Edge/Kind/suspendedFrame``) and recomputes its
  /// cycles.
  ///
  /// Nodes may come in any order, but their ids must be exactly `0..<count`. The `dangling`,
  /// `notes` and `noteDetails` arrays are optional (without `noteDetails`, each of `notes` reads as a
  /// note of kind `unknown`); unknown keys are ignored. The text is read as Foundation's
  /// `JSONSerialization` reads JSON (UTF-8, or UTF-16 or UTF-32 detected as it detects them; a key
  /// given twice keeps its last value; arrays and objects nested at most 512 deep), in one pass over
  /// the bytes, without a tree of objects.
  /// - Parameter jsonData: the JSON's bytes.
  /// - Throws: ``GraphDecodingError`` naming what is wrong and where: not JSON, another format or version,
  ///   a missing field, a value of the wrong type (`nodes[2].id: expected an integer, found "x"`), a
  ///   duplicate or missing id, an edge to an unknown node, an unknown kind or ownership, a kind
  ///   without its argument (`edges[3].capture: missing field`).
  public init(jsonData: Data) throws(GraphDecodingError) {
    let snapshot = try JSONReader(data: jsonData).read()
    self.init(
      storage: snapshot.storage, root: snapshot.root, isTruncated: snapshot.truncated,
      danglingReferences: snapshot.dangling, notes: snapshot.notes)
  }
}

/// Why a snapshot file could not be read: the file, or its text.
package enum SnapshotFileError: Error {
  /// The file cannot be opened or read.
  case unreadable
  /// The text is not a snapshot.
  case invalid(GraphDecodingError)
}

extension ObjectGraph {
  /// Reads the snapshot in the file at `path` as ``init(jsonData:)`` reads its bytes, the same
  /// graph and the same errors, without holding the text in memory whole: it is read through a
  /// window of `windowSize` bytes (grown when one record needs more), so that reading a big
  /// snapshot takes the memory of its graph, not of its text as well.
  package init(jsonFile path: String, windowSize: Int = 1 << 20) throws(SnapshotFileError) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw .unreadable }
    defer { close(descriptor) }
    let snapshot: JSONReader.Parts
    do {
      snapshot = try JSONReader.read(descriptor: descriptor, windowSize: windowSize)
    } catch {
      throw error.reason == .unreadable ? .unreadable : .invalid(error)
    }
    self.init(
      storage: snapshot.storage, root: snapshot.root, isTruncated: snapshot.truncated,
      danglingReferences: snapshot.dangling, notes: snapshot.notes)
  }
}
