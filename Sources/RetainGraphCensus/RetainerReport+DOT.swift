internal import RetainGraph
internal import RetainGraphFormats

extension RetainerReport {
  /// The retainer path and the direct holders as a Graphviz graph, drawn as every picture of the
  /// package is (the drawing plan and its shared style): the path's start on the left (a global as
  /// a graph's root; a holder the census cannot see as a dashed box, its reference dashed), the
  /// object (with a heavier outline) on the right, closures as ellipses and tasks and queued blocks
  /// as tags, every reference drawn by its ownership (strong solid, weak dashed, `unowned` dotted),
  /// and an object held only by its own cycle drawn inside the cycle's group.
  /// - Returns: DOT text, deterministic, without addresses.
  public func dot() -> String { drawingPlan.dot() }

  /// The picture's plan: the object is node 0, the path's start node 1 (when it has one), then the
  /// path's objects in order, then the other holders.
  var drawingPlan: DrawingPlan {
    var parts = DrawingPlanParts(title: pictureTitle)
    let target = parts.addNode(typeName, isFocus: true)
    let start: Node.ID? =
      switch origin {
      case .global(let name): parts.addNode(name, isRoot: true)
      case .unseenHolder: parts.addNode("a holder the census cannot see", kind: .value)
      // A task's or block's path starts at itself (its first step's holder).
      case .retainCycle, .runtimeHolder, .ownCycle, .none: nil
      }
    // The object's own cycle starts and ends at the object.
    var current: Node.ID? = origin == .ownCycle ? target : nil
    var loop = [target]
    for (index, step) in path.enumerated() {
      let holder: Node.ID
      if let current {
        holder = current
      } else {
        let isRuntimeHolder = if case .runtimeHolder = origin { index == 0 } else { false }
        holder = parts.addNode(
          step.holder,
          kind: isRuntimeHolder ? .task : DrawingPlan.NodeKind(nodeKind(ofHolderNamed: step.holder)))
        if let start {
          parts.addReference(
            from: start, to: holder, label: "", ownership: .strong, isConservative: origin == .unseenHolder)
        }
      }
      let next = index == path.count - 1 ? target : parts.addNode(step.target)
      if next != target { loop.append(next) }
      parts.addReference(
        from: holder, to: next, label: step.label, ownership: .strong, isOnCycle: origin == .ownCycle)
      current = next
    }
    if path.isEmpty, let start { parts.addReference(from: start, to: target, label: "", ownership: .strong) }
    if origin == .ownCycle, !path.isEmpty {
      parts.groupCycle(
        loop, title: "its own retain cycle (\(loop.count) \(loop.count == 1 ? "object" : "objects"))")
    }
    let onPath = path.last.map { "\($0.holder).\($0.label)" }
    for retainer in retainers
    where !retainer.heldBy.isGlobal && "\(retainer.heldBy.name).\(retainer.label)" != onPath {
      let holder = parts.addNode(
        retainer.heldBy.name, kind: DrawingPlan.NodeKind(Self.nodeKind(of: retainer.heldBy)))
      parts.addReference(
        from: holder, to: target, label: retainer.label,
        ownership: DrawingPlan.ReferenceKind(retainer.ownership))
    }
    return parts.plan
  }

  /// The heading: the object and where its path starts, as ``description`` says it.
  private var pictureTitle: String {
    switch origin {
    case .global(let name): "\(typeName): shortest retainer path, from the global \(name)"
    case .runtimeHolder(let name): "\(typeName): shortest retainer path, held by a \(name)"
    case .unseenHolder: "\(typeName): shortest retainer path, from a holder the census cannot see"
    case .retainCycle:
      "\(typeName): shortest retainer path, from a retain cycle that nothing the census sees holds"
    case .ownCycle: "\(typeName): held only by its own cycle"
    case .none: "\(typeName): no strong holder is seen"
    }
  }

  /// What a node named `name` on the path is, when a direct holder of that name says so (an object
  /// otherwise: a path's steps name their holders only by name).
  private func nodeKind(ofHolderNamed name: String) -> Node.Kind {
    retainers.first { $0.heldBy.name == name }.map { Self.nodeKind(of: $0.heldBy) } ?? .object
  }

  /// How a holder is drawn: a closure's context as a closure, a task or queued block as a task.
  private static func nodeKind(of holder: Holder) -> Node.Kind {
    switch holder {
    case .object, .global: .object
    case .closure: .closure
    case .runtimeHolder: .task
    }
  }
}
