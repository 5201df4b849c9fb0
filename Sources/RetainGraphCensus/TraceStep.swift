public import RetainGraph

/// One reference of a leak trace or a retainer path, as values: what holds it, where in the holder
/// it is and how it holds, and what it holds (LeakCanary's shark keeps a trace's references so,
/// `LeakTraceReference`). The text a report prints is made from these.
public struct TraceStep: Sendable, Hashable, Codable {
  /// The holder's name: its short type name, or a closure's function (`closure #1 in Feed.start()`).
  public var holder: String
  /// What the holder is: an object, a closure's context, a task.
  public var holderKind: Node.Kind
  /// The path from the holder to the reference (`images[0]`, `onText (closure) → capture 0`).
  public var label: String
  /// How the holder stores the reference (`Edge.kind`); nil when the search did not say.
  public var kind: Edge.Kind?
  /// Whether the reference retains.
  public var ownership: Ownership
  /// The referenced object's name, as ``holder`` names its holder.
  public var target: String
  /// What the referenced object is.
  public var targetKind: Node.Kind

  /// Creates a step.
  /// - Parameters:
  ///   - holder: the holder's name.
  ///   - holderKind: what the holder is.
  ///   - label: the path from the holder to the reference.
  ///   - kind: how the holder stores it, when known.
  ///   - ownership: whether it retains.
  ///   - target: the referenced object's name.
  ///   - targetKind: what the referenced object is.
  public init(
    holder: String, holderKind: Node.Kind = .object, label: String, kind: Edge.Kind? = nil,
    ownership: Ownership = .strong, target: String, targetKind: Node.Kind = .object
  ) {
    self.holder = holder
    self.holderKind = holderKind
    self.label = label
    self.kind = kind
    self.ownership = ownership
    self.target = target
    self.targetKind = targetKind
  }
}

extension TraceStep {
  /// The step of `edge` in `graph`, its objects named as a trace names them.
  package init(_ edge: Edge, in graph: ObjectGraph) {
    self.init(
      holder: graph.displayName(edge.from), holderKind: graph.node(edge.from).kind, label: edge.label,
      kind: edge.kind, ownership: edge.ownership, target: graph.displayName(edge.to),
      targetKind: graph.node(edge.to).kind)
  }
}
