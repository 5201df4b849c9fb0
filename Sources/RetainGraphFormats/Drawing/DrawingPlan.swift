/// What a picture of a graph shows, decided once for every format (the core makes it from a graph:
/// `DrawingPlan(graph:style:)`): DOT (and through Graphviz the
/// SVG, PNG, PDF and the HTML page's drawing), and any new one. A format writes the plan in its own
/// words with the colours of ``DrawingPalette``; it decides nothing.
///
/// The plan holds the nodes drawn (most important first up to the node cap: the root, each cycle
/// and the path to it, then breadth-first), each with its element name, label, full type name and
/// cycle; the cycles that have a drawn member; the references between drawn nodes with their marks;
/// per holder how many of its targets were cut; the notes box; the dangling references; the
/// direction and the title; and how many nodes were cut and why (``cut``).
package struct DrawingPlan {
  /// What a drawn node stands for, which decides its shape and fill.
  package enum NodeKind: Sendable, Hashable {
    /// A class instance: a rounded box.
    case object
    /// A closure's context.
    case closure
    /// A value-type root.
    case value
    /// A task of Swift concurrency.
    case task
  }

  /// How a drawn reference holds its target, which decides its line.
  package enum ReferenceKind: Sendable, Hashable {
    case strong
    case weak
    case unowned
    case unownedUnsafe
  }

  /// Which way the picture reads.
  package enum Direction: String, Sendable, Hashable {
    case leftToRight = "LR"
    case topToBottom = "TB"
  }

  /// More nodes than this are drawn with tighter spacing (and decide an automatic direction from
  /// the graph's shape).
  package static let automaticLayoutThreshold = 12

  /// A node drawn.
  package struct DrawnNode {
    package let id: Int
    /// The element's name, which the SVG keeps as the node's `<title>`: `n12` for node 12.
    package let name: String
    /// What the box says: the short (or qualified) type name, a closure's name as the fix lines
    /// write it, shortened and wrapped (``DrawingLabel``).
    package let label: String
    /// The full type name (a tooltip).
    package let typeName: String
    package let kind: NodeKind
    package let isRoot: Bool
    /// The index in `graph.cycles` of the cycle the node is on, nil when it is on none.
    package let cycle: Int?
    /// The node the picture is about (a retainer report's object), drawn with a heavier outline;
    /// none in a graph's picture.
    package var isFocus = false

    package init(
      id: Int, name: String, label: String, typeName: String, kind: NodeKind, isRoot: Bool, cycle: Int?,
      isFocus: Bool = false
    ) {
      self.id = id
      self.name = name
      self.label = label
      self.typeName = typeName
      self.kind = kind
      self.isRoot = isRoot
      self.cycle = cycle
      self.isFocus = isFocus
    }
  }

  /// A cycle with at least one member drawn (drawn as a group: a DOT cluster).
  package struct CycleGroup {
    /// The index in `graph.cycles`.
    package let index: Int
    /// `retain cycle 1 (3 objects)`: the count is of all its members, drawn or not.
    package let title: String
    /// The members drawn, in the cycle's order.
    package let members: [DrawnNode]

    package init(index: Int, title: String, members: [DrawnNode]) {
      self.index = index
      self.title = title
      self.members = members
    }
  }

  /// A reference between two drawn nodes.
  package struct DrawnReference {
    package let from: Int
    package let to: Int
    /// The reference's label with what it is (` (weak)`), ` ✂ break here` when a fix weakens it,
    /// shortened and wrapped.
    package let label: String
    package let ownership: ReferenceKind
    /// A strong reference between two members of the same cycle.
    package let isOnCycle: Bool
    /// A strong reference that the fix plan weakens.
    package let isBreak: Bool
    /// A strong word of a suspended frame: a conservative reference (drawn dashed).
    package let isConservative: Bool
    /// The target is nearer the root than the holder (a weak `view`, the loop-closing `output`):
    /// drawn without pulling its target after its holder, so the picture reads outwards.
    package let pointsBack: Bool

    package init(
      from: Int, to: Int, label: String, ownership: ReferenceKind, isOnCycle: Bool, isBreak: Bool,
      isConservative: Bool, pointsBack: Bool
    ) {
      self.from = from
      self.to = to
      self.label = label
      self.ownership = ownership
      self.isOnCycle = isOnCycle
      self.isBreak = isBreak
      self.isConservative = isConservative
      self.pointsBack = pointsBack
    }
  }

  /// A drawn holder's references to nodes the cap left out, drawn as one `+N more` box.
  package struct CollapsedTargets {
    package let holder: Int
    package let count: Int
    /// `more12` for holder 12: the page's script finds it by this name.
    package let name: String
    package let label: String

    package init(holder: Int, count: Int, name: String, label: String) {
      self.holder = holder
      self.count = count
      self.name = name
      self.label = label
    }
  }

  /// What the walk did not see, as one box tied to the drawn nodes it is about.
  package struct NotesBox {
    package static let name = "notes"
    /// The box's lines, each wrapped, joined with line breaks.
    package let label: String
    /// The drawn nodes a note is about, once per note.
    package let attachedTo: [Int]

    package init(label: String, attachedTo: [Int]) {
      self.label = label
      self.attachedTo = attachedTo
    }
  }

  /// A dangling `unowned` reference of a drawn holder, drawn to a placeholder.
  package struct DanglingTarget {
    package let holder: Int
    /// `dangling3` for the graph's fourth dangling reference.
    package let name: String
    package let label: String
    /// The reference's label and ` (unowned)`, shortened.
    package let referenceLabel: String

    package init(holder: Int, name: String, label: String, referenceLabel: String) {
      self.holder = holder
      self.name = name
      self.label = label
      self.referenceLabel = referenceLabel
    }
  }

  /// How many nodes were drawn of how many could be, and why the others were not.
  package struct Cut {
    package let drawn: Int
    /// The nodes that could be drawn: all, or with ``cyclesOnly`` the cycles and the paths to them.
    package let candidates: Int
    /// The node cap, nil for none.
    package let cap: Int?
    package let cyclesOnly: Bool

    /// The cut of `candidates` nodes (in drawing order) under the node cap `cap` (at least 1 is
    /// drawn), of the cycles and the paths to them alone when `cyclesOnly`.
    package init(candidates: Int, cap: Int?, cyclesOnly: Bool) {
      self.candidates = candidates
      drawn = min(candidates, cap.map { max(1, $0) } ?? candidates)
      self.cap = cap
      self.cyclesOnly = cyclesOnly
    }
  }

  /// The picture's heading: the root, its cycles, what is partial, what is not drawn.
  package let title: String
  /// Left to right or top to bottom (the graph's automatic direction is resolved when the plan is
  /// made, from the drawn nodes).
  package let direction: Direction
  /// More nodes than ``automaticLayoutThreshold`` are drawn: tighter spacing.
  package let isLarge: Bool
  package let cycleGroups: [CycleGroup]
  /// Every drawn node, in id order.
  package let nodes: [DrawnNode]
  /// Every reference between drawn nodes, in the graph's edge order.
  package let references: [DrawnReference]
  package let collapsed: [CollapsedTargets]
  package let notes: NotesBox?
  package let dangling: [DanglingTarget]
  package let cut: Cut

  /// What a node's element name is made of: this and its id (`n12`). Graphviz keeps it as the
  /// node's SVG `<title>` (and an edge's as `n3->n12`), where the HTML page's script finds it.
  package static let nodeNamePrefix = "n"
  /// What a `+N more` box's element name is made of: this and its holder's id (`more12`).
  package static let collapsedNamePrefix = "more"

  /// The element name of node `id` in every drawing (`n12`).
  package static func elementName(of id: Int) -> String { nodeNamePrefix + String(id) }
  /// The element name of holder `id`'s `+N more` box (`more12`).
  package static func collapsedName(of id: Int) -> String { collapsedNamePrefix + String(id) }

  /// A plan of its parts, as the core makes it from a graph.
  package init(
    title: String, direction: Direction, cycleGroups: [CycleGroup], nodes: [DrawnNode],
    references: [DrawnReference], collapsed: [CollapsedTargets] = [], notes: NotesBox? = nil,
    dangling: [DanglingTarget] = [], cut: Cut? = nil
  ) {
    self.title = title
    self.direction = direction
    isLarge = (cut?.drawn ?? nodes.count) > Self.automaticLayoutThreshold
    self.cycleGroups = cycleGroups
    self.nodes = nodes
    self.references = references
    self.collapsed = collapsed
    self.notes = notes
    self.dangling = dangling
    self.cut = cut ?? Cut(candidates: nodes.count, cap: nil, cyclesOnly: false)
  }
}
