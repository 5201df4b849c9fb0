internal import RetainGraphSupport

/// The object graph reachable from a root, as plain data, with the ownership of every reference.
///
/// ```swift
/// let graph = ObjectGraph(reflecting: viewController)
/// print(graph.report())          // the leak trace, "" when there is no cycle
/// graph.cycles                   // every strong retain cycle
/// graph.predictedLeaks()         // what survives once the root is released
/// ```
///
/// The graph holds no references to the objects it describes: it is plain data, safe to keep, send
/// and save (``jsonData()``).
public struct ObjectGraph: Sendable {
  /// The id of the root node (0 for a walked graph).
  public let root: Node.ID
  /// True when a limit (``GraphOptions/maxNodes``, ``GraphOptions/maxDepth``) stopped the walk.
  public let isTruncated: Bool
  /// Strong retain cycles, ordered by their smallest member id.
  public let cycles: [Cycle]
  /// `unowned` references to objects that were already deinitialised.
  public let danglingReferences: [DanglingReference]
  /// What the walk did not see, as values: each note's kind, the node it is about and the type not
  /// read, with its sentence (its `description`); a cut by a limit is a
  /// ``GraphNote/Kind-swift.struct/truncated`` note (``isTruncated`` says it too).
  /// See ``isComplete`` for which of them make a verdict incomplete.
  public let walkNotes: [GraphNote]
  /// The modules whose code is not yours, as the graph was made with.
  let libraries: Libraries

  /// Nodes and edges in compact form; ``nodes`` and ``edges`` are views over it.
  let storage: GraphStorage
  /// Where each object node's object was when it was walked, for ``node(for:)``; empty for a graph
  /// read from JSON or made from parts.
  let objectAddresses: ObjectAddresses

  /// Every node; `nodes[id]` is the node with that id.
  ///
  /// A view over the graph's compact storage: each ``Node`` is made when read, and reading every
  /// node keeps no copy of them (`Array(graph.nodes)` makes an array).
  public var nodes: Nodes { Nodes(storage: storage) }
  /// Every reference found, in walk order: a view like ``nodes``, each ``Edge`` made when read.
  public var edges: Edges { Edges(storage: storage) }
  /// The number of nodes.
  public var nodeCount: Int { storage.nodeCount }
  /// The number of edges.
  public var edgeCount: Int { storage.edges.count }
  /// The node with id `id`.
  public func node(_ id: Node.ID) -> Node { storage.node(id) }
  /// The edge at `index` in ``edges``.
  public func edge(at index: Int) -> Edge { storage.edge(index) }

  /// Creates a graph from its parts and computes its cycles.
  /// - Parameters:
  ///   - nodes: the nodes, node `i` at index `i`.
  ///   - edges: the references between them.
  ///   - root: the id of the node the graph was walked from.
  ///   - isTruncated: whether a limit stopped the walk.
  ///   - danglingReferences: `unowned` references to objects already deinitialized.
  ///   - notes: what the walk could not read.
  ///   - libraryModules: modules whose code is not yours, for the fix plans (see
  ///     ``GraphOptions/libraryModules``).
  /// - Throws: ``GraphDecodingError`` when an edge names an unknown node, an id is out of place, or the
  ///   root is missing.
  public init(
    nodes: some Collection<Node>,
    edges: some Collection<Edge>,
    root: Node.ID = 0,
    isTruncated: Bool = false,
    danglingReferences: [DanglingReference] = [],
    notes: [String] = [],
    libraryModules: Set<String> = GraphOptions.defaultLibraryModules
  ) throws(GraphDecodingError) {
    let storage = try Self.validatedStorage(
      nodes: nodes, edges: edges, root: root, danglingReferences: danglingReferences)
    self.init(
      storage: storage, root: root, isTruncated: isTruncated, danglingReferences: danglingReferences,
      notes: notes.map { GraphNote(kind: .unknown, description: $0) }, libraryModules: libraryModules)
  }

  /// Creates a graph from its parts, with its notes as values, and computes its cycles.
  /// - Parameters:
  ///   - nodes: the nodes, node `i` at index `i`.
  ///   - edges: the references between them.
  ///   - root: the id of the node the graph was walked from.
  ///   - isTruncated: whether a limit stopped the walk.
  ///   - danglingReferences: `unowned` references to objects already deinitialized.
  ///   - walkNotes: what the walk did not see (see ``walkNotes``).
  ///   - libraryModules: modules whose code is not yours, for the fix plans (see
  ///     ``GraphOptions/libraryModules``).
  /// - Throws: ``GraphDecodingError`` when an edge or a note names an unknown node, an id is out of
  ///   place, or the root is missing.
  public init(
    nodes: some Collection<Node>,
    edges: some Collection<Edge>,
    root: Node.ID = 0,
    isTruncated: Bool = false,
    danglingReferences: [DanglingReference] = [],
    walkNotes: [GraphNote],
    libraryModules: Set<String> = GraphOptions.defaultLibraryModules
  ) throws(GraphDecodingError) {
    let storage = try Self.validatedStorage(
      nodes: nodes, edges: edges, root: root, danglingReferences: danglingReferences)
    for (index, note) in walkNotes.enumerated() {
      if let node = note.node, !(0..<storage.nodeCount).contains(node) {
        throw .unknownNode("noteDetails[\(index)].node", node)
      }
    }
    self.init(
      storage: storage, root: root, isTruncated: isTruncated || walkNotes.contains { $0.kind == .truncated },
      danglingReferences: danglingReferences, notes: walkNotes, libraryModules: libraryModules)
  }

  /// The compact storage of `nodes` and `edges`, once their ids are checked.
  private static func validatedStorage(
    nodes: some Collection<Node>, edges: some Collection<Edge>, root: Node.ID,
    danglingReferences: [DanglingReference]
  ) throws(GraphDecodingError) -> GraphStorage {
    let ids = 0..<nodes.count
    for (index, node) in nodes.enumerated() where node.id != index {
      throw GraphDecodingError(
        .idOutOfPlace, at: .field("nodes[\(index)].id"),
        "nodes[\(index)]: id \(node.id) is out of place; ids must be 0..<\(nodes.count) in order")
    }
    guard ids.contains(root) else {
      throw .unknownNode("root", root, " (there are \(nodes.count) nodes)")
    }
    for (index, edge) in edges.enumerated() {
      for (end, id) in [("from", edge.from), ("to", edge.to)] where !ids.contains(id) {
        throw .unknownNode("edges[\(index)].\(end)", id)
      }
    }
    for (index, dangling) in danglingReferences.enumerated() where !ids.contains(dangling.holder) {
      throw .unknownNode("dangling[\(index)].holder", dangling.holder)
    }
    guard let storage = GraphStorage(nodes: nodes, edges: edges) else {
      throw .tooManyLabels()
    }
    return storage
  }

  init(
    storage: GraphStorage,
    root: Node.ID,
    isTruncated: Bool,
    danglingReferences: [DanglingReference],
    notes: [GraphNote],
    libraryModules: Set<String> = GraphOptions.defaultLibraryModules,
    libraryRules: [LibraryRule] = [],
    objectAddresses: ChunkedArray<UInt> = ChunkedArray()
  ) {
    self.root = root
    self.storage = storage
    self.objectAddresses = ObjectAddresses(objectAddresses)
    self.isTruncated = isTruncated
    self.danglingReferences = danglingReferences
    self.walkNotes = notes
    self.libraries = Libraries(modules: libraryModules)
    // The analysis finds the cycles and their plans; the advice is written from them afterwards.
    let finder = CycleFinder(storage: storage, root: root, libraryModules: libraryModules)
    self.cycles = Advice.cycles(
      finder.cycles(), isLibrary: finder.isLibrary, libraries: libraryRules, in: storage)
  }

  /// Walks the graph reachable from `root`.
  ///
  /// The walk follows stored properties through structs, enums, tuples, optionals, existentials and
  /// collections, reads the ownership of every reference from the runtime (so `weak` and `unowned`
  /// are told apart from strong), follows stored closures to what they capture, and never reads a
  /// dangling `unowned` reference. It is iterative: deep graphs do not use stack.
  ///
  /// - Important: The walk reads every object it reaches while it runs: nothing may mutate what it
  ///   reaches meanwhile (run it on the actor or queue that owns the graph). A graph other threads
  ///   keep changing can crash the walk; use ``init(snapshotting:options:timeout:)`` for it.
  /// - Parameters:
  ///   - root: the object or value to start from.
  ///   - options: limits and filters.
  /// - Complexity: O(*n* + *e*) for *n* objects and *e* references, plus the values walked through.
  public init(reflecting root: Any, options: GraphOptions = GraphOptions()) {
    var walker = Walker(options: options)
    self.init(walk: walker.walk(root), options: options)
  }

  /// Walks the graph from `root` like ``init(reflecting:options:)`` and also returns the objects it
  /// found, so that a caller can take weak references to each (the leak tests do).
  /// - Parameters:
  ///   - root: the object or value to start from.
  ///   - options: limits and filters.
  /// - Returns: the graph, and `objects[id]`: the object of node `id` (nil for a value root and for
  ///   closure contexts). The caller holds these strongly until it drops the array.
  package static func walk(
    _ root: Any, options: GraphOptions = GraphOptions()
  ) -> (graph: ObjectGraph, objects: [AnyObject?]) {
    var walker = Walker(options: options)
    let result = walker.walk(root, keepingObjects: true)
    return (ObjectGraph(walk: result, options: options), result.objects)
  }

  /// Assembles the graph a walk produced, its fix plans made with the libraries of `options`.
  init(walk result: WalkResult, options: GraphOptions) {
    self.init(
      storage: result.storage, root: 0, isTruncated: result.isTruncated,
      danglingReferences: result.danglingReferences, notes: result.notes,
      libraryModules: options.planLibraryModules, libraryRules: options.libraries,
      objectAddresses: result.objectAddresses)
  }
}
