internal import RetainGraphFormats

// The plan's references, the boxes for what the node cap cut, and the notes box.

extension DrawingPlan {
  /// Every reference between two drawn nodes, in the graph's edge order, with its marks. Every
  /// reference an edit weakens is marked (six route handlers' captures: six marks).
  static func references(of graph: ObjectGraph, shown: [Bool], cycleOf: [Int?], depth: [Int?])
    -> [DrawnReference]
  {
    let breaks = Set(graph.cycles.flatMap { $0.fixPlan.flatMap(\.edges) })
    var references: [DrawnReference] = []
    for edge in graph.edges where shown[edge.from] && shown[edge.to] {
      var label = DrawingLabel.abbreviated(edge.label)
      var isOnCycle = false
      var isConservative = false
      switch edge.ownership {
      case .strong:
        // A word of a suspended frame is a conservative reference.
        isConservative = graph.node(edge.from).kind == .task && edge.kind == .suspendedFrame
        if let cycle = cycleOf[edge.from], cycleOf[edge.to] == cycle { isOnCycle = true }
      case .weak: label += " (weak)"
      case .unowned: label += " (unowned)"
      case .unownedUnsafe: label += " (unowned(unsafe))"
      }
      let isBreak = edge.ownership == .strong && breaks.contains(edge)
      if isBreak { label += " ✂ break here" }
      var pointsBack = false
      if let from = depth[edge.from], let to = depth[edge.to], to < from { pointsBack = true }
      references.append(
        DrawnReference(
          from: edge.from, to: edge.to, label: DrawingLabel.wrapped(label),
          ownership: ReferenceKind(edge.ownership),
          isOnCycle: isOnCycle, isBreak: isBreak, isConservative: isConservative, pointsBack: pointsBack))
    }
    return references
  }

  /// Per drawn holder (in id order), how many of the nodes it references could be drawn but were
  /// cut by the node cap; a holder with none has no box.
  static func collapsedTargets(of graph: ObjectGraph, shown: [Bool], candidate: [Bool]) -> [CollapsedTargets]
  {
    var hiddenTargets = [Int](repeating: 0, count: graph.nodeCount)
    var counted = Set<[Int]>()
    for edge in graph.edges where shown[edge.from] && candidate[edge.to] && !shown[edge.to] {
      if counted.insert([edge.from, edge.to]).inserted { hiddenTargets[edge.from] += 1 }
    }
    return hiddenTargets.enumerated().compactMap { id, count in
      guard count > 0 else { return nil }
      return CollapsedTargets(holder: id, count: count, name: collapsedName(of: id), label: "+\(count) more")
    }
  }

  /// A note box with what the walk did not see (each note of yours, once each, and one short line
  /// per library), tied to the first drawn node each of your notes is about; nil when there is
  /// nothing to say.
  static func notesBox(of graph: ObjectGraph, shown: [Bool]) -> NotesBox? {
    var seen: Set<String> = []
    let own = graph.walkNotes.filter {
      !graph.isLibraryNote($0) && seen.insert($0.description).inserted
    }
    let library = graph.libraryNoteLines(graph.walkNotes).map { String($0.dropFirst("note: ".count)) }
    guard !own.isEmpty || !library.isEmpty else { return nil }
    let shownNotes = own.prefix(5).map { "not seen: " + $0.description }
    let more = own.count > 5 ? ["+\(own.count - 5) more notes"] : []
    let text = (shownNotes + more + library).map { DrawingLabel.wrapped($0) }.joined(separator: "\n")
    let attached = own.compactMap { note -> Node.ID? in
      guard let node = note.node, node < shown.count, shown[node] else { return nil }
      return node
    }
    return NotesBox(label: text, attachedTo: attached)
  }
}
