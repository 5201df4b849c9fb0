internal import RetainGraphStorage
internal import RetainGraphSupport

/// A strong retain cycle: a strongly connected component of the strong references.
public struct Cycle: Sendable, Hashable {
  /// The component's nodes, in ascending id order.
  public let members: [Node.ID]
  /// The shortest loop through the member nearest the root, starting and ending at that member.
  /// (Made from the graph's compact edges each time it is read.)
  public var path: [Edge] { loopEdges.edges }
  /// The shortest path (over all references) from the root to the loop's first member; empty when
  /// the root itself is in the cycle or the cycle cannot be reached from the root. (Made from the
  /// graph's compact edges each time it is read: a graph of many cycles far from its root keeps
  /// 4 bytes per reference of each path, not an `Edge`.)
  public var pathFromRoot: [Edge] { rootPathEdges.edges }
  /// ``path`` and ``pathFromRoot`` as indices of the graph's edges.
  let loopEdges: EdgeIndices
  let rootPathEdges: EdgeIndices
  /// The reference to make `weak` first: the first break of ``fixPlan``; nil when the plan weakens
  /// nothing, as for a library's own loop (``isLibraryOnly``).
  public var suggestedEdge: Edge? { fixPlan.first?.edge }
  /// Every reference to weaken so that no strong cycle is left among the members, the most
  /// idiomatic fix first (see ``Break/Idiom``), each with the loop it breaks.
  ///
  /// The plan is chosen by ownership idioms, not by the distance from the root, so the same
  /// objects give the same plan whichever of them a graph is walked from: a closure's capture of an
  /// object (`[weak self]` in that closure) or a stored method reference first, then a back
  /// reference (`delegate`, `dataSource`, `parent`, `owner`, `output`, observers, listeners, the
  /// reference from a child to the object holding it), then any other reference.
  ///
  /// It is a minimum feedback arc set of the component's strong references (the fewest references
  /// to weaken), found by exhaustive search when the component has at most 16 strong references
  /// between different members; above that, a greedy plan: every reference it weakens was on a
  /// strong loop when it was chosen, and none can be kept strong without making a loop again, so
  /// it weakens at most *e* − *n* + 1 references for *e* references among *n* members.
  ///
  /// For a component with more than 2,048 strong references between members, the plan weakens the
  /// back edges of one depth-first search, and only the first 8 are described here (each needs a
  /// search for its loop); ``referencesToWeaken`` says how many there are in all.
  public let fixPlan: [Break]
  /// How many references the whole plan weakens: `fixPlan.count`, unless the component is too
  /// large for every break to be described.
  public let referencesToWeaken: Int
  /// The members that still hold each other in strong loops once every reference of ``fixPlan`` is
  /// weakened: objects of library modules alone (``GraphOptions/libraryModules``), whose loops are
  /// the library's own (a subject and the subscriptions it keeps until they are cancelled). The
  /// plan frees your objects and leaves these to the library; empty when it leaves no loop, or when
  /// the graph's objects are all of library modules or none is (then every loop is planned).
  public let libraryLoopMembers: [Node.ID]

  /// Whether the cycle is made of library objects alone (every member is in
  /// ``libraryLoopMembers``): a loop the library keeps by design while you use it (a subject and
  /// its subscriptions), with nothing of yours to weaken. `assertNoCycles` does not fail on it.
  public var isLibraryOnly: Bool { fixPlan.isEmpty && libraryLoopMembers.count == members.count }

  /// Creates a cycle description whose plan weakens `referencesToWeaken` references, of which
  /// `fixPlan` describes the first. Only the cycle finder makes cycles.
  init(
    members: [Node.ID], path: EdgeIndices, pathFromRoot: EdgeIndices, fixPlan: [Break],
    referencesToWeaken: Int, libraryLoopMembers: [Node.ID]
  ) {
    self.members = members
    self.loopEdges = path
    self.rootPathEdges = pathFromRoot
    self.fixPlan = fixPlan
    self.referencesToWeaken = max(referencesToWeaken, fixPlan.count)
    self.libraryLoopMembers = libraryLoopMembers
  }
}

/// Edges of a graph by their indices in its storage, made into ``Edge`` values when read. Two lists
/// are equal when they name equal edges (in any graphs).
struct EdgeIndices: Sendable, Hashable {
  private let storage: GraphStorage?
  private let listed: [Int32]
  /// For a path from the root: the root search's parent edge of each node (one array shared by
  /// every cycle of the graph) and the path's last node; the path is made when read.
  private let parentEdges: [Int32]?
  private let end: Int32

  init(_ indices: [Int32], in storage: GraphStorage) {
    listed = indices
    self.storage = indices.isEmpty ? nil : storage
    parentEdges = nil
    end = -1
  }

  /// The path from the root to `node` along `parentEdges` (-1 for the root and for nodes the
  /// root does not reach: their path is empty).
  init(pathTo node: Int32, parentEdges: [Int32], in storage: GraphStorage) {
    listed = []
    self.storage = parentEdges[Int(node)] >= 0 ? storage : nil
    self.parentEdges = parentEdges
    end = node
  }

  var indices: [Int32] {
    guard let parentEdges, let storage else { return listed }
    var path: [Int32] = []
    var current = Int(end)
    while parentEdges[current] >= 0 {
      path.append(parentEdges[current])
      current = Int(storage.edges[Int(parentEdges[current])].from)
    }
    return path.reversed()
  }

  var edges: [Edge] { storage.map { storage in indices.map { storage.edge(Int($0)) } } ?? [] }

  /// The graph's storage the indices are of (nil for an empty list).
  var graphStorage: GraphStorage? { storage }

  var first: Edge? { indices.first.flatMap { index in storage?.edge(Int(index)) } }

  static func == (lhs: EdgeIndices, rhs: EdgeIndices) -> Bool {
    let (left, right) = (lhs.indices, rhs.indices)
    guard left.count == right.count else { return false }
    if lhs.storage === rhs.storage { return left == right }
    return lhs.edges == rhs.edges
  }

  func hash(into hasher: inout Hasher) { hasher.combine(indices.count) }
}
