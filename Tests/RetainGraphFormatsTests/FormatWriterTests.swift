import Foundation
import RetainGraphFormats
import RetainGraphTestSupport
import Testing

/// The writers on plans and logs made by hand, without a graph: what each format says of every
/// part of a plan (a cycle's group, a root, a closure, a task, each ownership, a break, a
/// conservative reference, one pointing back), whole against golden files.
@Suite struct FormatWriterTests {
  /// A plan of every kind of node and reference: a root holding a two-member cycle, a closure, a
  /// task, and a weak, an `unowned` and an `unowned(unsafe)` reference.
  static let plan: DrawingPlan = {
    var parts = DrawingPlanParts(title: "Screen: 1 retain cycle")
    let root = parts.addNode("App.Screen", isRoot: true)
    let presenter = parts.addNode("App.Presenter")
    let interactor = parts.addNode("App.Interactor")
    let closure = parts.addNode("closure #1 in App.Presenter.start()", kind: .closure)
    let task = parts.addNode("task (closure #1 in App.Poller.run())", kind: .task, isFocus: true)
    parts.addReference(from: root, to: presenter, label: "presenter", ownership: .strong)
    parts.addReference(
      from: presenter, to: interactor, label: "interactor", ownership: .strong, isOnCycle: true)
    parts.addReference(from: interactor, to: presenter, label: "output", ownership: .strong, isOnCycle: true)
    parts.addReference(from: presenter, to: closure, label: "onChange (closure)", ownership: .strong)
    parts.addReference(from: closure, to: root, label: "capture 0", ownership: .weak)
    parts.addReference(
      from: task, to: interactor, label: "suspended frame", ownership: .strong, isConservative: true)
    parts.addReference(from: interactor, to: root, label: "screen", ownership: .unowned)
    parts.addReference(from: closure, to: task, label: "capture 1", ownership: .unownedUnsafe)
    parts.groupCycle([presenter, interactor], title: "retain cycle 1 (2 objects)")
    return parts.plan
  }()

  @Test func dotSaysEveryPartOfAPlan() {
    assertGolden(DOTWriter(plan: Self.plan).text(), named: "plan", pathExtension: "dot")
  }

  @Test func mermaidSaysEveryPartOfAPlan() {
    assertGolden(MermaidWriter(plan: Self.plan).text(), named: "plan", pathExtension: "mmd")
  }

  /// Every drawn node and reference is written once, whatever the format: counted in each text by the
  /// element names the plan gives.
  @Test func everyNodeAndReferenceIsWrittenOnce() {
    let dot = DOTWriter(plan: Self.plan).text()
    for node in Self.plan.nodes {
      let statements = dot.components(separatedBy: "\n").filter {
        $0.trimmingCharacters(in: .whitespaces).hasPrefix("\"\(node.name)\" [")
      }
      #expect(statements.count == 1, "\(node.name)")
    }
    let dotArrows = dot.components(separatedBy: "\n").filter { $0.contains(" -> ") }
    #expect(dotArrows.count == Self.plan.references.count)
    let mermaid = MermaidWriter(plan: Self.plan).text()
    let arrows = ["-->|", "-.->|", "==>|"]
    let links = mermaid.components(separatedBy: "\n").filter { line in arrows.contains { line.contains($0) } }
    #expect(links.count == Self.plan.references.count, "\(mermaid)")
  }

  /// A label is never longer than the limit and never loses its start or end; wrapping keeps every
  /// character but the breaks it adds.
  @Test func labelsAreShortenedAndWrappedWithoutLosingText() {
    let long = String(repeating: "VeryLongTypeName", count: 12) + ".end"
    let short = DrawingLabel.abbreviated(long)
    #expect(short.count == DrawingLabel.maximumLabelLength)
    #expect(short.hasPrefix("VeryLongTypeName") && short.hasSuffix(".end") && short.contains("…"))
    let name = "closure #1 in App.ChatViewModel.init(service:)"
    let wrapped = DrawingLabel.wrapped(name)
    #expect(wrapped.split(separator: "\n").allSatisfy { $0.count <= DrawingLabel.lineWidth })
    #expect(
      wrapped.split(separator: "\n").count > 1
        && wrapped.split(separator: "\n").count <= DrawingLabel.maximumLines)
    #expect(
      wrapped.replacingOccurrences(of: "\n", with: "").filter { $0 != " " } == name.filter { $0 != " " })
    // Beyond the lines a label may take, the last line ends in an ellipsis.
    let longer = DrawingLabel.wrapped(name + " (method Handler.handle(_:)) and more of it")
    #expect(longer.split(separator: "\n").count == DrawingLabel.maximumLines && longer.hasSuffix("…"))
    #expect(longer.hasPrefix("closure #1 in"))
  }
}
