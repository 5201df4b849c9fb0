/// A picture that is not of a walked graph (a retainer report's path, in the census), planned from
/// its parts: nodes and references added one by one, which the plan labels as every picture's
/// (``DrawingLabel``, shortened and wrapped), so any format writes it as it writes a graph's.
package struct DrawingPlanParts {
  /// The picture's heading.
  package var title: String
  /// The direction (never automatic: a few nodes read left to right).
  package var direction: DrawingPlan.Direction = .leftToRight
  private var nodes: [DrawingPlan.DrawnNode] = []
  private var references: [DrawingPlan.DrawnReference] = []
  private var cycleGroups: [DrawingPlan.CycleGroup] = []

  /// Parts of a picture headed `title`, with no node yet.
  package init(title: String) { self.title = title }

  /// Adds a node and returns its id (the nodes are numbered from 0 in the order they are added).
  /// - Parameters:
  ///   - name: what the box says (shortened and wrapped) and its tooltip.
  ///   - kind: what it is: an object's box, a closure's ellipse, a value's dashed box, a task's tag.
  ///   - isRoot: where the picture starts (drawn as a graph's root).
  ///   - isFocus: the node the picture is about (drawn with a heavier outline).
  /// - Returns: the node's id.
  package mutating func addNode(
    _ name: String, kind: DrawingPlan.NodeKind = .object, isRoot: Bool = false, isFocus: Bool = false
  ) -> Int {
    let id = nodes.count
    nodes.append(
      DrawingPlan.DrawnNode(
        id: id, name: DrawingPlan.elementName(of: id),
        label: DrawingLabel.wrapped(DrawingLabel.abbreviated(name)), typeName: name, kind: kind,
        isRoot: isRoot, cycle: nil, isFocus: isFocus))
    return id
  }

  /// Adds a reference between two added nodes, labelled as a graph's (` (weak)` after a weak one…).
  /// - Parameters:
  ///   - from: the holder's id.
  ///   - to: the target's id.
  ///   - label: the reference's label (shortened and wrapped here).
  ///   - ownership: whether it retains.
  ///   - isOnCycle: a strong reference of the cycle grouped by ``groupCycle(_:title:)``.
  ///   - isConservative: a reference that may not be one (drawn dashed).
  package mutating func addReference(
    from: Int, to: Int, label: String, ownership: DrawingPlan.ReferenceKind, isOnCycle: Bool = false,
    isConservative: Bool = false
  ) {
    var text = DrawingLabel.abbreviated(label)
    switch ownership {
    case .strong: break
    case .weak: text += " (weak)"
    case .unowned: text += " (unowned)"
    case .unownedUnsafe: text += " (unowned(unsafe))"
    }
    references.append(
      DrawingPlan.DrawnReference(
        from: from, to: to, label: DrawingLabel.wrapped(text), ownership: ownership,
        isOnCycle: isOnCycle && ownership == .strong, isBreak: false, isConservative: isConservative,
        pointsBack: false))
  }

  /// Draws `members` (added nodes, in the cycle's order) as one retain cycle's group, headed `title`.
  package mutating func groupCycle(_ members: [Int], title: String) {
    let index = cycleGroups.count
    for member in members {
      let node = nodes[member]
      nodes[member] = DrawingPlan.DrawnNode(
        id: node.id, name: node.name, label: node.label, typeName: node.typeName, kind: node.kind,
        isRoot: node.isRoot, cycle: index, isFocus: node.isFocus)
    }
    cycleGroups.append(DrawingPlan.CycleGroup(index: index, title: title, members: members.map { nodes[$0] }))
  }

  /// The plan: every node drawn, nothing cut, no notes or dangling references.
  package var plan: DrawingPlan {
    DrawingPlan(
      title: title, direction: direction, cycleGroups: cycleGroups, nodes: nodes, references: references)
  }
}
