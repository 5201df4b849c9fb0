internal import Foundation

extension ObjectGraph {
  /// The human-readable leak trace: every strong cycle with the path from the root to it, the loop,
  /// the reference to break (marked `~~~`) and a one-line fix; then dangling `unowned` references,
  /// notes, and whether a limit truncated the walk (in the first line).
  ///
  /// - Returns: the report, or `""` when there is no cycle, no dangling reference and no truncation.
  public func report() -> String {
    guard !cycles.isEmpty || !danglingReferences.isEmpty || isTruncated else { return "" }
    var lines: [String] = []
    if isTruncated {
      lines.append(
        "warning: a limit stopped the walk at \(nodeCount) nodes; this graph is partial and may miss cycles"
      )
    }
    lines.append(summary())
    for (index, cycle) in cycles.enumerated() {
      lines.append("")
      if cycles.count > 1 {
        lines.append("cycle \(index + 1) of \(cycles.count) (\(memberSummary(cycle))):")
      }
      lines += trace(of: cycle)
    }
    if !danglingReferences.isEmpty {
      lines.append("")
      for dangling in danglingReferences {
        lines.append(
          "dangling unowned reference: \(storage.shortTypeName(dangling.holder)).\(dangling.label) points to an "
            + "object that was already deinitialized; reading it will crash")
      }
    }
    if !notes.isEmpty {
      lines.append("")
      lines += notes.map { "note: \($0)" }
    }
    return lines.joined(separator: "\n")
  }

  /// The report's first line: how many retain cycles the root reaches, and how many objects they
  /// hold — `1 retain cycle reachable from ViewController (2 objects)`, or
  /// `no retain cycle reachable from ViewController`.
  public func summary() -> String {
    let rootName = storage.shortTypeName(root)
    guard !cycles.isEmpty else { return "no retain cycle reachable from \(rootName)" }
    let objects = Set(cycles.flatMap(\.members)).count
    let noun = cycles.count == 1 ? "retain cycle" : "retain cycles"
    return
      "\(cycles.count) \(noun) reachable from \(rootName) (\(objects) \(objects == 1 ? "object" : "objects"))"
  }

  private func memberSummary(_ cycle: Cycle) -> String {
    let names = cycle.members.prefix(4).map { storage.shortTypeName($0) }
    let more = cycle.members.count > 4 ? ", +\(cycle.members.count - 4) more" : ""
    return "\(cycle.members.count) objects: \(names.joined(separator: ", "))\(more)"
  }

  private func trace(of cycle: Cycle) -> [String] {
    var lines: [String] = []
    let start = cycle.pathFromRoot.first?.from ?? cycle.path.first?.from ?? cycle.members[0]
    if start == root || cycle.pathFromRoot.isEmpty == false {
      lines.append(storage.shortTypeName(start))
    } else {
      lines.append("\(storage.shortTypeName(start))   (not reachable from the root)")
    }
    for edge in cycle.pathFromRoot {
      lines.append(" ├─ \(hop(edge))")
    }
    for (index, edge) in cycle.path.enumerated() {
      var line = " ├─ \(hop(edge))"
      if index == cycle.path.count - 1 { line += "   (strong; loop closes here)" }
      lines.append(line)
      if edge == cycle.suggestedBreak {
        lines.append(" │  " + String(repeating: "~", count: max(edge.label.count, 1)))
      }
    }
    lines.append(" fix: \(fix(for: cycle))")
    return lines
  }

  private func fix(for cycle: Cycle) -> String {
    let edge = cycle.suggestedBreak
    let holder = node(edge.from)
    if holder.kind == .closure {
      // The closure captures the object strongly: name where the closure is stored.
      let stored =
        cycle.path.first { $0.to == edge.from }
        ?? storage.edges.firstIndex { Int($0.to) == edge.from }.map(storage.edge)
      let place = stored.map { "\(storage.shortTypeName($0.from)).\(EdgeLabel.storagePath(of: $0.label))" }
      let target = storage.shortTypeName(edge.to)
      return "capture \(target) weakly ([weak self] or [weak \(Self.lowerFirst(target))]) in the closure "
        + "\(holder.typeName)\(place.map { " stored at \($0)" } ?? "")"
    }
    if let method = EdgeLabel.method(of: edge.label) {
      let path = EdgeLabel.storagePath(of: edge.label)
      return "store `\(MethodReference.weakClosure(for: method))` in \(holder.shortTypeName).\(path) "
        + "instead of the method reference \(method)"
    }
    if EdgeLabel.isClosure(edge.label) {
      let path = EdgeLabel.storagePath(of: edge.label)
      return "capture [weak self] (or [unowned self]) in \(holder.shortTypeName).\(path)"
    }
    return "make \(holder.shortTypeName).\(edge.label) weak"
  }

  private static func lowerFirst(_ name: String) -> String {
    guard let first = name.first else { return name }
    let base = name.prefix { $0 != "<" }
    return first.lowercased() + base.dropFirst()
  }
}
