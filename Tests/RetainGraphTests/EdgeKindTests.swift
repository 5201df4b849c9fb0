import RetainGraph
import Testing

final class KindLeaf {}

enum KindState {
  case idle
  case loaded(KindLeaf)
}

/// `handle(_:)` has a body: an empty one leaves nothing for release to inline into the curry thunk
/// (no inlined-subroutine record names it) and the thunk reads as a plain closure.
final class KindMethodOwner {
  var total = 0
  func handle(_ value: Int) { total += value }
}

final class KindHolder {
  var child: KindLeaf? = KindLeaf()
  var items = [KindLeaf(), KindLeaf()]
  var named: [String: KindLeaf] = ["a": KindLeaf()]
  var state = KindState.loaded(KindLeaf())
  var pair: (KindLeaf, Int)? = (KindLeaf(), 1)
  var action: (() -> Void)?
  var single: (() -> Void)?
  var handler: ((Int) -> Void)?
}

@Suite("Edge kinds")
struct EdgeKindTests {
  /// A holder with one reference of every kind; the objects are held only by the holder.
  static func makeHolder() -> KindHolder {
    let holder = KindHolder()
    let first = KindLeaf()
    let second = KindLeaf()
    holder.action = {
      _ = first; _ = second
    }
    let only = KindLeaf()
    holder.single = { _ = only }
    holder.handler = KindMethodOwner().handle
    return holder
  }

  // Needs the binary readers: it checks names read from the symbol tables (BinaryReadersTests

  // checks the names without them).
  #if BinaryReaders
    /// Every kind the walk tells apart, with the property each is in; then each property is cleared
    /// in turn, and weak probes show that exactly the objects the graph put in that property (or in
    /// a closure stored there) were released.
    @Test func theWalkNamesEveryKindAndItsProperty() {
      let holder = Self.makeHolder()
      let graph: ObjectGraph
      var objects: [AnyObject?]
      (graph, objects) = ObjectGraph.walk(holder)
      let found = Dictionary(
        graph.edges.map { ($0.label, "\($0.kind) \($0.property ?? "-")") },
        uniquingKeysWith: { $0 + " | " + $1 })
      #expect(found["child"] == "property child")
      #expect(found["items[0]"] == "element items")
      #expect(found["items[1]"] == "element items")
      #expect(found[#"named["a"]"#] == "element named")
      #expect(found["state.loaded"] == "enumPayload state")
      #expect(found["pair.0"] == "property pair")
      #expect(found["action (closure)"] == "closure action")
      #expect(found["capture 0"] == "capture(index: 0) -")
      #expect(found["capture 1"] == "capture(index: 1) -")
      #expect(found["single (closure) → capture 0"] == "singleCapture single")
      #expect(
        found["handler (method KindMethodOwner.handle(_:))"]
          == #"methodReference(method: "KindMethodOwner.handle(_:)") handler"#, "\(found)")
      #expect(graph.edges.count == found.count, "\(found)")

      // Objects by the property that holds them: directly, or through the closure stored there.
      var probes: [String: [WeakProbe]] = [:]
      for edge in graph.edges where edge.from == graph.root {
        guard let property = edge.property else { continue }
        let held =
          edge.kind == .closure
          ? graph.edges.filter { $0.from == edge.to }.map(\.to) : [edge.to]
        probes[property, default: []] += held.compactMap { objects[$0] }.map(WeakProbe.init)
      }
      #expect(
        probes.keys.sorted() == ["action", "child", "handler", "items", "named", "pair", "single", "state"])
      #expect(probes.values.map(\.count).reduce(0, +) == 10)
      let clear: [(String, (KindHolder) -> Void)] = [
        ("child", { $0.child = nil }), ("items", { $0.items = [] }), ("named", { $0.named = [:] }),
        ("state", { $0.state = .idle }), ("pair", { $0.pair = nil }), ("action", { $0.action = nil }),
        ("single", { $0.single = nil }), ("handler", { $0.handler = nil }),
      ]
      objects.removeAll()
      for (property, clearing) in clear {
        #expect(probes[property]?.allSatisfy { $0.object != nil } == true, "\(property) before")
        clearing(holder)
        #expect(probes[property]?.allSatisfy { $0.object == nil } == true, "\(property) released its objects")
      }
    }
  #endif
}
