import Foundation
import RetainGraph
import Testing

final class PatternInteractor {
  var output: PatternPresenter?
  var outputs: [PatternPresenter] = []
}

final class PatternPresenter {
  let interactor = PatternInteractor()
  var output: PatternPresenter?
}

final class PatternBox<Item: AnyObject> {
  var output: Item?
  init(_ item: Item) { output = item }
}

final class PatternScreen {
  let presenter = PatternPresenter()
  lazy var box = PatternBox(presenter)
}

class PatternBase {
  var delegate: PatternDelegate?
}

final class PatternSubclass: PatternBase {
  var other: PatternDelegate?
}

final class PatternDelegate {
  var owner: AnyObject?
}

/// The twin: a class that declares its own `delegate`, whose superclass has none.
class PatternPlainBase {}

final class PatternOwnDelegate: PatternPlainBase {
  var delegate: PatternDelegate?
}

/// References to ignore named by type and property: the walk leaves out exactly the references an
/// object of a matching type holds in that property (its elements included), nothing else.
@Suite struct ReferencePatternTests {
  /// A screen whose presenter and interactor hold each other through `output`, and a presenter
  /// that holds itself through its own `output`.
  static func makeScreen() -> PatternScreen {
    let screen = PatternScreen()
    screen.presenter.interactor.output = screen.presenter
    screen.presenter.interactor.outputs = [screen.presenter, screen.presenter]
    screen.presenter.output = screen.presenter
    _ = screen.box
    return screen
  }

  static func breakCycles(_ screen: PatternScreen) { breakCycles(of: screen.presenter) }

  static func breakCycles(of presenter: PatternPresenter) {
    presenter.interactor.output = nil
    presenter.interactor.outputs = []
    presenter.output = nil
  }

  /// Whether `text` matches `pattern`, `*` matching any run of characters (the pattern's first
  /// part a prefix, its last a suffix, the others in order between them).
  static func glob(_ pattern: String, matches text: String) -> Bool {
    let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
    guard parts.count > 1 else { return pattern == text }
    guard text.hasPrefix(parts[0]), text.hasSuffix(parts[parts.count - 1]),
      text.count >= parts[0].count + parts[parts.count - 1].count
    else { return false }
    var rest = Substring(text.dropFirst(parts[0].count).dropLast(parts[parts.count - 1].count))
    for part in parts.dropFirst().dropLast() where !part.isEmpty {
      guard let range = rest.range(of: part) else { return false }
      rest = rest[range.upperBound...]
    }
    return true
  }

  /// `holder.label → target` for each edge.
  static func references(_ graph: ObjectGraph) -> [String] {
    graph.edges.map {
      "\(graph.nodes[$0.from].shortTypeName).\($0.label) → \(graph.nodes[$0.to].shortTypeName)"
    }.sorted()
  }

  @Test(arguments: [
    ("PatternInteractor", "output"), ("RetainGraphTests.PatternInteractor", "output"),
    ("*Interactor", "output"),
    ("Pattern*", "outputs"), ("PatternBox<*>", "output"), ("*", "output"),
  ])
  func aPatternLeavesOutWhatItNamesAndNothingElse(_ type: String, _ property: String) {
    let screen = Self.makeScreen()
    defer { Self.breakCycles(screen) }
    let pattern = ReferencePattern.property(property, of: type)
    let all = ObjectGraph(reflecting: screen)
    let ignored = ObjectGraph(reflecting: screen, options: GraphOptions(ignoredReferences: [pattern]))
    // Independently of the walker's matching: the edges whose holder's type the pattern names (by
    // a glob written here) and whose property is the one named.
    func holderMatches(_ name: String) -> Bool {
      let short = name.split(separator: ".", maxSplits: 1).last.map(String.init) ?? name
      return [name, short].contains { Self.glob(type, matches: $0) }
    }
    let kept = all.edges.filter { !(holderMatches(all.nodes[$0.from].typeName) && $0.property == property) }
    #expect(kept.count < all.edges.count, "\(pattern) matched nothing: \(Self.references(all))")
    // Every node stays reachable (each is held another way), so the rest of the graph is the same.
    #expect(ignored.nodeCount == all.nodeCount)
    #expect(
      Self.references(ignored)
        == kept.map { "\(all.nodes[$0.from].shortTypeName).\($0.label) → \(all.nodes[$0.to].shortTypeName)" }
        .sorted())
  }

  /// Ignoring both references of the loop accepts the cycle; the runtime still keeps the objects
  /// (ignoring hides a reference, it does not weaken it).
  @Test func ignoringTheLoopsReferencesAcceptsTheCycle() {
    weak var probe: PatternPresenter?
    let graph: ObjectGraph = {
      let screen = Self.makeScreen()
      probe = screen.presenter
      return ObjectGraph(
        reflecting: screen,
        options: GraphOptions(ignoredReferences: [
          .property("output", of: "Pattern*"), .property("outputs", of: "PatternInteractor"),
        ]))
    }()
    #expect(graph.cycles.isEmpty, "\(graph.report())")
    #expect(probe != nil, "the runtime freed the presenter its own output holds")
    if let probe { Self.breakCycles(of: probe) }
    #expect(probe == nil, "breaking the cycles did not free the presenter")
  }

  @Test func aPatternIsItsTypeAndProperty() {
    let pattern = ReferencePattern.property("output", of: "Interactor")
    #expect(pattern.holderType == "Interactor" && pattern.property == "output")
    #expect(pattern.description == "Interactor.output")
    #expect(pattern == .property("output", of: "Interactor"))
    #expect(pattern != .property("output", of: "Presenter"))
  }

  /// A pattern naming a superclass leaves out the property a subclass inherits from it, and only
  /// that: the subclass's own `other`, which closes the same loop, stays, so the runtime's cycle is
  /// still found through it.
  @Test func aPatternOnASuperclassNamesTheInheritedProperty() {
    weak var probe: PatternSubclass?
    let (all, ignored): (ObjectGraph, ObjectGraph) = {
      let subclass = PatternSubclass()
      let delegate = PatternDelegate()
      subclass.delegate = delegate
      subclass.other = delegate
      delegate.owner = subclass
      probe = subclass
      return (
        ObjectGraph(reflecting: subclass),
        ObjectGraph(
          reflecting: subclass,
          options: GraphOptions(ignoredReferences: [.property("delegate", of: "PatternBase")]))
      )
    }()
    #expect(probe != nil, "the runtime freed the subclass its delegate holds")
    #expect(all.predictedLeaks().contains(all.root), "\(all.report())")
    // Independently of the walker's matching: every edge but the root's `delegate`.
    let kept = all.edges.filter { !($0.from == all.root && $0.property == "delegate") }
    #expect(kept.count == all.edges.count - 1, "\(Self.references(all))")
    #expect(
      Self.references(ignored)
        == kept.map { "\(all.nodes[$0.from].shortTypeName).\($0.label) → \(all.nodes[$0.to].shortTypeName)" }
        .sorted())
    #expect(ignored.predictedLeaks().contains(ignored.root), "\(ignored.report())")
    probe?.delegate?.owner = nil
    #expect(probe == nil, "breaking the delegate's owner did not free the subclass")
  }

  /// The twin that must not be matched: a pattern naming a superclass that has no `delegate` leaves
  /// out nothing of a subclass's own `delegate`; naming the subclass does.
  @Test func aPatternOnASuperclassWithoutThePropertyNamesNothing() {
    let holder = PatternOwnDelegate()
    let delegate = PatternDelegate()
    holder.delegate = delegate
    delegate.owner = holder
    defer { delegate.owner = nil }
    let all = ObjectGraph(reflecting: holder)
    let onSuperclass = ObjectGraph(
      reflecting: holder,
      options: GraphOptions(ignoredReferences: [.property("delegate", of: "PatternPlainBase")]))
    #expect(Self.references(onSuperclass) == Self.references(all))
    #expect(onSuperclass.cycles.count == 1, "\(onSuperclass.report())")
    let onItsType = ObjectGraph(
      reflecting: holder,
      options: GraphOptions(ignoredReferences: [.property("delegate", of: "PatternOwnDelegate")]))
    // The delegate is reached only through it: the holder alone is left.
    #expect(onItsType.nodeCount == 1 && onItsType.edges.isEmpty, "\(Self.references(onItsType))")
    #expect(onItsType.cycles.isEmpty, "\(onItsType.report())")
  }
}
