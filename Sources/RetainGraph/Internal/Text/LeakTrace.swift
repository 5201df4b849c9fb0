extension ObjectGraph {
  /// One hop of a leak trace: `label → Type`, with the ownership when it is not strong.
  func hop(_ edge: Edge) -> String {
    let ownership = edge.ownership == .strong ? "" : " (\(edge.ownership.rawValue))"
    return "\(edge.label) → \(storage.shortTypeName(edge.to))\(ownership)"
  }

  /// A path as leak-trace lines, in the report's format: the first holder, then one hop a line.
  /// ```
  /// Dashboard
  ///  ├─ notifier → Notifier
  ///  ├─ observers[3] → Observer
  /// ```
  /// - Parameters:
  ///   - path: consecutive edges; an empty path is the root alone.
  ///   - indent: put before every line.
  /// - Returns: the lines, without line breaks.
  package func traceLines(along path: [Edge], indent: String = "") -> [String] {
    let start = path.first?.from ?? root
    return [indent + storage.shortTypeName(start)] + path.map { "\(indent) ├─ \(hop($0))" }
  }
}
