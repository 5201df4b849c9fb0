internal import RetainGraph
internal import RetainGraphKnownCycles
public import XCTest

/// An `XCTestCase` that checks, after every test, that the objects its stored properties held are
/// gone once `tearDown()` has run (``checksProperties``), and, when asked, that the test left no
/// leaked cycle behind (``checksLeakedCycles``). Each check is its own choice.
///
/// ```swift
/// final class ProfilePresenterTests: LeakCheckingTestCase {
///   var sut: ProfilePresenter?
///   override func setUp() { sut = ProfilePresenter() }
///   override func tearDown() { sut = nil }
///   func testLoads() { sut?.load() }
/// }
/// ```
/// - Properties that already hold an object before `setUp()` are constants and are skipped, as are
///   `lazy` properties and value-typed properties (structs, enums, closures).
/// - Just before teardown finishes (after the test's own teardown blocks, before `tearDown()`), it
///   takes a weak reference to every object the properties hold, through optionals and
///   collections.
/// - After `tearDown()` it fails for each object still alive, naming the property and saying why:
///   the property was not reset in `tearDown()` (the test case itself keeps it; not a leak), or the
///   object leaked (the retain cycle that keeps it, the path, the fix).
///
/// Failures are reported at the end of the test, not at a line of it: XCTest does not tell where a
/// test method is.
open class LeakCheckingTestCase: XCTestCase {
  /// How long to wait after `tearDown()` for the properties' objects to go (default 1 second).
  open var leakCheckTimeout: Duration { .seconds(1) }

  /// Names of properties to leave out of the sweep (default: none).
  open var propertiesExemptFromLeakCheck: Set<String> { [] }

  /// Whether each test fails for an object one of its stored properties held that is still alive
  /// after `tearDown()` (the property sweep). Default true; override it to return false for a suite
  /// that only wants ``checksLeakedCycles``, or whose properties outlive their tests on purpose.
  open var checksProperties: Bool { true }

  /// Whether each test also fails when it leaves a leaked cycle behind: a group of objects that
  /// nothing outside holds, one of which the test allocated (what `assertNoLeakedCycles` checks of a
  /// block). Default false. It needs the heap census running around the test
  /// (`override func invokeTest() { HeapCensus.run { super.invokeTest() } }` in your subclass);
  /// without it each test fails with a message saying so.
  open var checksLeakedCycles: Bool { false }

  /// The known-cycles file the leaked-cycle check (``checksLeakedCycles``) reads: a leaked cycle it
  /// lists passes until its entry expires (a new one fails, an expired one fails with the entry's
  /// reason). Default: `.retain-graph-known.json` at the root of the package the current directory
  /// is in (`swift test` runs in the package's root), when there is one; XCTest does not say which
  /// file a test case is in. Override it to name the file (a relative path is taken from the current
  /// directory), or to return nil for none.
  open var knownCyclesFile: String? { KnownCycles.workingDirectoryFile }

  /// Runs the test (`setUp()`, the test, teardown blocks, `tearDown()`) between the two halves of
  /// the property sweep, in a leak scope of its own when ``checksLeakedCycles``.
  override open func invokeTest() {
    guard checksLeakedCycles else { return invokeSweptTest() }
    // Without a census the test still runs, and fails saying how to start one.
    let checked = runCheckingLeakedCycles(
      subject: "The test", place: "the test", timeout: .seconds(60), knownFile: knownCyclesFile
    ) {
      invokeSweptTest()
    }
    if let problem = checked.problem {
      recordFailure(
        withDescription: problem, inFile: String(describing: #filePath), atLine: #line, expected: true)
    }
  }

  private func invokeSweptTest() {
    guard checksProperties else { return super.invokeTest() }
    let constants = Set(heldObjects().map(\.property))
    let sweep = PropertySweep()
    addTeardownBlock { [weak self, sweep] in
      guard let self else { return }
      sweep.probes = self.heldObjects().filter { !constants.contains($0.property) }.map {
        PropertyProbe(
          property: $0.property, label: $0.label, isWholeProperty: $0.isWholeProperty,
          probe: WeakProbe($0.object))
      }
    }
    super.invokeTest()
    checkSweep(sweep)
  }

  private func checkSweep(_ sweep: PropertySweep) {
    let probes = sweep.probes
    sweep.probes = []
    let wait = waitForRelease(probes.map(\.probe), timeout: leakCheckTimeout, options: GraphOptions())
    if wait == .released { return }
    let stillHeld = Set(heldObjects().filter { $0.ownership == .strong }.map { ObjectIdentifier($0.object) })
    var survivorGraphs = SurvivorGraphs(
      probes: probes.filter { $0.probe.object.map { !stillHeld.contains(ObjectIdentifier($0)) } ?? false })
    for entry in probes {
      guard let object = entry.probe.object else { continue }
      var (why, graph) = Explanation.ofSurvivor(object, options: GraphOptions())
      if !why.hasPrefix("Why: a retain cycle"), !stillHeld.contains(ObjectIdentifier(object)),
        let holder = survivorGraphs.holder(of: object, besides: entry)
      {
        why = holder.explanation(of: graph.nodes[graph.root].shortTypeName)
      }
      let named =
        entry.isWholeProperty
        ? "`\(entry.property)`" : "`\(entry.label)` (property `\(entry.property)`)"
      let message: String
      if stillHeld.contains(ObjectIdentifier(object)) {
        var text =
          "\(named) was not reset in tearDown(): it still holds \(entry.probe.typeName). This is not a leak: "
          + "the test case keeps it alive, and XCTest keeps every test case until the run ends. "
          + "Set `\(entry.property)` to nil (or empty it) in tearDown()."
        if why.hasPrefix("Why: a retain cycle") {
          text += "\nOnce reset, it would still leak. " + why
        }
        message = text
      } else {
        message =
          "\(named) held \(entry.probe.typeName), which \(wait.stillAlive(after: "tearDown()")), "
          + "although the test no longer holds it.\n\(why)"
      }
      let files = GraphAttachment.files(
        for: [("retain-graph-\(entry.probe.typeName)", graph)], at: nil, testName: name)
      recordFailure(
        withDescription: message + "\n\n" + GraphAttachment.hint(for: files, attached: false),
        inFile: String(describing: #filePath), atLine: #line, expected: true)
    }
  }

  /// The objects the sweepable properties hold right now, with the property and path that hold each.
  private func heldObjects() -> [HeldObject] {
    let properties = sweepableProperties()
    guard !properties.isEmpty else { return [] }
    let (graph, objects) = ObjectGraph.walk(self, options: GraphOptions(maxDepth: 1, includeClosures: false))
    var held: [HeldObject] = []
    for edge in graph.edges where edge.from == graph.root {
      guard let property = edge.property, properties.contains(property), let object = objects[edge.to]
      else { continue }
      held.append(
        HeldObject(
          property: property, label: edge.label, isWholeProperty: edge.kind == .property,
          ownership: edge.ownership, object: object))
    }
    return held
  }

  /// Stored properties declared by subclasses that can hold objects: class-typed, optional or
  /// collection properties, neither lazy nor exempt.
  private func sweepableProperties() -> Set<String> {
    var names: Set<String> = []
    var mirror: Mirror? = Mirror(reflecting: self)
    while let current = mirror, current.subjectType != LeakCheckingTestCase.self {
      for child in current.children {
        guard let label = child.label, !label.hasPrefix("$__lazy_storage_$_") else { continue }
        if Self.canHoldObjects(child.value) { names.insert(label) }
      }
      mirror = current.superclassMirror
    }
    return names.subtracting(propertiesExemptFromLeakCheck)
  }

  private static func canHoldObjects(_ value: Any) -> Bool {
    if type(of: value) is AnyObject.Type { return true }
    switch Mirror(reflecting: value).displayStyle {
    case .class, .optional, .collection, .set, .dictionary, .tuple: return true
    default: return false
    }
  }
}

/// One object a property held, found by walking the test case one reference deep.
private struct HeldObject {
  var property: String
  var label: String
  /// The property holds the object itself (not in an element, a payload or a closure).
  var isWholeProperty: Bool
  var ownership: Ownership
  var object: AnyObject
}

private struct PropertyProbe {
  var property: String
  var label: String
  var isWholeProperty: Bool
  var probe: WeakProbe
}

/// Carries the probes from the teardown block to the check after `tearDown()`.
private final class PropertySweep {
  var probes: [PropertyProbe] = []
}

/// The graphs walked from the sweep's survivors, to tell when one survivor holds another: a
/// repository held by a leaked view model is "held by `list`'s NotesListViewModel.repository", not
/// retained from outside.
private struct SurvivorGraphs {
  let probes: [PropertyProbe]
  private var walked: [Int: (graph: ObjectGraph, objects: [AnyObject?])] = [:]

  init(probes: [PropertyProbe]) { self.probes = probes }

  /// The first other survivor (in property order) whose graph holds `object` along strong references only.
  mutating func holder(of object: AnyObject, besides entry: PropertyProbe) -> SurvivorHolder? {
    for (index, other) in probes.enumerated() where other.probe !== entry.probe {
      guard let otherObject = other.probe.object, otherObject !== object else { continue }
      let walk = walked[index] ?? ObjectGraph.walk(otherObject, options: GraphOptions(maxNodes: 10_000))
      walked[index] = walk
      guard let id = walk.objects.firstIndex(where: { $0 === object }), let path = walk.graph.path(to: id),
        !path.isEmpty, path.allSatisfy({ $0.ownership == .strong })
      else { continue }
      return SurvivorHolder(survivor: other, graph: walk.graph, path: path)
    }
    return nil
  }
}

/// Another survivor of the sweep that holds an object, and the path from it.
private struct SurvivorHolder {
  let survivor: PropertyProbe
  let graph: ObjectGraph
  let path: [Edge]

  func explanation(of name: String) -> String {
    let last = path[path.count - 1]
    let holder = "\(graph.nodes[last.from].shortTypeName).\(last.label)"
    var lines = [
      "Why: no retain cycle keeps \(name) alive; it is held by `\(survivor.label)`'s \(holder), and "
        + "`\(survivor.label)` (\(survivor.probe.typeName)) is itself still alive (see its own failure). "
        + "Fix that leak and this one goes with it:"
    ]
    lines += Explanation.lines(for: path, in: graph, indent: "  ")
    return lines.joined(separator: "\n")
  }
}
