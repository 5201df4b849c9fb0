import RetainGraphFormats
import RetainGraphTestSupport
import Testing

@testable import RetainGraph

/// The drawing plan every picture is written from, checked against what it must be, computed here
/// independently from the graph (its cycles, its edges, the style's cap), on random graphs with
/// random caps; and the DOT text written from it holds exactly the plan's nodes. (The DOT and HTML
/// goldens check the pictures themselves.)
@Suite struct DrawingPlanTests {
  @Test(arguments: 0..<120)
  func aPlanHoldsWhatTheGraphAndTheCapSay(seed: UInt64) throws {
    var random = SplitMix64(seed: seed &* 7919 &+ 3)
    let count = 2 + Int(random.next() % 24)
    let (nodes, edges) = FixPlanTests.randomGraph(count: count, seed: random.next(), density: 0.3)
    let graph = try ObjectGraph(nodes: nodes, edges: edges)
    let cap: Int? = random.next() % 3 == 0 ? nil : Int(random.next() % UInt64(count + 2))
    let style = DOTStyle(cyclesOnly: random.next() % 4 == 0, maxNodes: cap)
    let plan = DrawingPlan(graph: graph, style: style)
    let context = Comment(rawValue: "seed \(seed), \(count) nodes, cap \(cap.map(String.init) ?? "none")")

    // The candidates: every node, or the root, the cycles and the paths to them.
    var candidates: Set<Int> = [graph.root]
    for cycle in graph.cycles {
      candidates.formUnion(cycle.members)
      candidates.formUnion(cycle.pathFromRoot.map(\.from))
    }
    if !style.cyclesOnly { candidates = Set(0..<count) }
    let drawnCount = min(candidates.count, cap.map { max(1, $0) } ?? candidates.count)
    #expect(plan.cut.candidates == candidates.count, context)
    #expect(plan.cut.drawn == drawnCount && plan.nodes.count == drawnCount, context)

    let drawn = plan.nodes.map(\.id)
    let shown = Set(drawn)
    #expect(drawn == drawn.sorted() && shown.count == drawn.count, context)
    #expect(shown.isSubset(of: candidates) && shown.contains(graph.root), context)
    // The root and the cycles come first: a cap that holds all of them draws all of them.
    let important = Set([graph.root] + graph.cycles.flatMap { $0.pathFromRoot.map(\.from) + $0.members })
    if drawnCount >= important.count { #expect(important.isSubset(of: shown), context) }

    var cycleOf: [Int: Int] = [:]
    for (index, cycle) in graph.cycles.enumerated() {
      for member in cycle.members { cycleOf[member] = index }
    }
    for node in plan.nodes {
      #expect(node.cycle == cycleOf[node.id] && node.isRoot == (node.id == graph.root), context)
      #expect(node.name == "n\(node.id)" && node.typeName == graph.node(node.id).typeName, context)
    }
    let groups = graph.cycles.indices.filter { graph.cycles[$0].members.contains(where: shown.contains) }
    #expect(plan.cycleGroups.map(\.index) == groups, context)
    for group in plan.cycleGroups {
      #expect(group.members.map(\.id) == graph.cycles[group.index].members.filter(shown.contains), context)
    }

    let between = graph.edges.filter { shown.contains($0.from) && shown.contains($0.to) }
    #expect(plan.references.map { [$0.from, $0.to] } == between.map { [$0.from, $0.to] }, context)
    for (reference, edge) in zip(plan.references, between) {
      let onCycle =
        edge.ownership == .strong && cycleOf[edge.from] != nil && cycleOf[edge.from] == cycleOf[edge.to]
      #expect(
        reference.isOnCycle == onCycle && reference.ownership == DrawingPlan.ReferenceKind(edge.ownership),
        context)
    }

    // Per drawn holder, its distinct candidate targets that were cut.
    var cutTargets: [Int: Set<Int>] = [:]
    for edge in graph.edges
    where shown.contains(edge.from) && candidates.contains(edge.to) && !shown.contains(edge.to) {
      cutTargets[edge.from, default: []].insert(edge.to)
    }
    #expect(plan.collapsed.map(\.holder) == cutTargets.keys.sorted(), context)
    for box in plan.collapsed {
      #expect(box.count == cutTargets[box.holder]?.count && box.label == "+\(box.count) more", context)
    }
    if cap == nil { #expect(plan.collapsed.isEmpty && plan.cut.drawn == plan.cut.candidates, context) }

    // The DOT text draws the plan's nodes, each once, and no other.
    let statements = DOTWriter(plan: plan).text().split(separator: "\n").filter { line in
      let statement = line.drop { $0 == " " }
      return !line.contains("->") && statement.hasPrefix("\"n")
        && statement.dropFirst(2).first?.isNumber == true
    }
    #expect(statements.count == plan.nodes.count, context)
    for node in plan.nodes { #expect(statements.contains { $0.contains("\"\(node.name)\" [") }, context) }
  }
}
