internal import RetainGraphRuntime

// Which of the walk's notes a verdict depends on, and the sentences that say what was not seen.

extension ObjectGraph {
  /// Whether the walk saw everything a verdict about your objects needs: no limit cut it, and no
  /// part of an object of yours went unread.
  ///
  /// A note makes a graph incomplete unless it lies in a library's own storage: a note about an
  /// object or closure context of a library module (``GraphOptions/libraryModules``), such as
  /// swift-log's closure contexts. The library's code laid out what it did not let the walk read;
  /// those notes are shown, grouped and short, and a verdict does not fail on them. Every other note
  /// could hide a reference that changes the answer (a `ManagedBuffer` of yours whose elements close
  /// a loop, a field of a type the runtime hides, a closure context whose captures were not read, a
  /// task running during the walk), as does a cut (``isTruncated``): the graph is then incomplete.
  /// A note read from a file that does not say its node (written before notes had nodes) counts
  /// as yours. A note that cannot hide a reference (``GraphNote/Kind/canHideReferences``: a name
  /// not read, frames read conservatively, in a build without binary readers) does not count.
  public var isComplete: Bool {
    !isTruncated && !walkNotes.contains { $0.kind.canHideReferences && !isLibraryNote($0) }
  }

  /// Whether `note` lies in a library's own storage (see ``isComplete``): its node is an object or
  /// closure context of a library module. A cut by a limit never does, nor a note of what this build
  /// does not read (``GraphNote/Kind/canHideReferences`` false), which is said once, for the graph.
  public func isLibraryNote(_ note: GraphNote) -> Bool {
    guard note.kind != .truncated, note.kind.canHideReferences, let node = note.node, node >= 0,
      node < nodeCount
    else { return false }
    return libraries.isLibrary(nodeNamed: storage.typeName(node))
  }

  /// Whether node `id` is an object or closure context of a library module.
  package func isLibraryNode(_ id: Node.ID) -> Bool {
    id >= 0 && id < nodeCount && libraries.isLibrary(nodeNamed: storage.typeName(id))
  }

  /// The notes that lie on `nodes`: a note lies on its node and on every node of the same type (the
  /// walk notes each unread part once per holder type). Notes without a node lie everywhere.
  /// - Parameter nodes: the part of the graph a verdict is about.
  /// - Returns: the notes in walk order.
  /// - Complexity: O(*n*) for *n* ids, plus the notes.
  public func notes(about nodes: some Sequence<Node.ID>) -> [GraphNote] {
    var types: Set<Int32> = []
    var ids: Set<Int> = []
    for id in nodes where id >= 0 && id < nodeCount {
      ids.insert(id)
      types.insert(storage.nodeTypes[id])
    }
    return walkNotes.filter { note in
      guard let node = note.node, node >= 0, node < nodeCount else { return true }
      return note.kind == .truncated || ids.contains(node) || types.contains(storage.nodeTypes[node])
    }
  }

  /// What the walk did not see among `notes` (and the cut, when `includingCut` and the graph is
  /// truncated), and how to see it; nil when every note is a library's (those are summed up in
  /// ``libraryNoteLines(_:)``). `verdict` names what may be missed (`a retain cycle`).
  package func incompleteness(
    _ notes: [GraphNote], includingCut: Bool = true, mayMiss verdict: String
  ) -> (lines: [String], howToSee: String)? {
    var seen: Set<String> = []
    let own = notes.filter {
      $0.kind.canHideReferences && !isLibraryNote($0) && (includingCut || $0.kind != .truncated)
        && seen.insert($0.description).inserted
    }
    let truncated = includingCut && isTruncated && !own.contains { $0.kind == .truncated }
    guard !own.isEmpty || truncated else { return nil }
    var lines = [
      "incomplete: the walk did not see all of the graph; \(verdict) may lie where it did not look:"
    ]
    if truncated { lines.append("  - a limit stopped the walk at \(nodeCount) nodes") }
    lines += own.map { "  - \($0.description)" }
    var ways: [String] = []
    if own.contains(where: { $0.kind == .truncated && $0.description.contains("maxNodes") }) || truncated {
      ways.append("raise GraphOptions.maxNodes above \(nodeCount)")
    }
    if own.contains(where: { $0.kind == .truncated && $0.description.contains("maxDepth") }) {
      ways.append("raise or remove GraphOptions.maxDepth")
    }
    if own.contains(where: { $0.kind != .truncated }) {
      ways.append("conform the type whose part was not read to GraphReflectable to describe what it holds")
    }
    ways.append("or run with the heap census (RetainGraphCensus), which sees every object without a walk")
    return (lines, "To see it: " + ways.joined(separator: "; ") + ".")
  }

  /// One short line per library among `notes`' library notes:
  /// `note: Logging: 2 closure contexts not read (the library's own storage)`.
  package func libraryNoteLines(_ notes: [GraphNote]) -> [String] {
    var counts: [String: (kinds: [GraphNote.Kind: Int], order: Int)] = [:]
    for note in notes where isLibraryNote(note) {
      guard let node = note.node else { continue }
      let module = TypeNames.module(ofNodeNamed: storage.typeName(node)).map(String.init) ?? "a library"
      var entry = counts[module] ?? ([:], counts.count)
      entry.kinds[note.kind, default: 0] += 1
      counts[module] = entry
    }
    return counts.sorted { $0.value.order < $1.value.order }.map { module, entry in
      let parts = entry.kinds.sorted { $0.key.rawValue < $1.key.rawValue }.map { kind, count in
        Self.unreadPhrase(kind, count: count)
      }
      return "note: \(module): \(parts.joined(separator: ", ")) not read (the library's own storage)"
    }
  }

  /// `2 closure contexts`, `1 hidden value`…
  private static func unreadPhrase(_ kind: GraphNote.Kind, count: Int) -> String {
    let (one, many): (String, String) =
      switch kind {
      case .unrecognisedClosure: ("closure context", "closure contexts")
      case .hiddenType: ("hidden value", "hidden values")
      case .unreadElements: ("buffer's elements", "buffers' elements")
      case .unreadField: ("field", "fields")
      case .unreadBlock: ("block", "blocks")
      case .unreadTask: ("task", "tasks")
      default: ("part", "parts")
      }
    return "\(count) \(count == 1 ? one : many)"
  }
}

extension ObjectGraph {
  /// The sentences of ``walkNotes`` but the cuts (``isTruncated`` says those), once each: the JSON's
  /// `notes`, for readers that take sentences only.
  var noteSentences: [String] {
    var seen: Set<String> = []
    return walkNotes.filter { $0.kind != .truncated && seen.insert($0.description).inserted }.map(
      \.description)
  }
}
