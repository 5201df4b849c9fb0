import RetainGraph
import RetainGraphRuntime
import RetainGraphTestSupport
import RouterTwin
import Testing

@testable import RetainGraph

// One name per closure, none invented (issue 29.4): route handlers passed through a library's
// wrapper closure (a Hummingbird router's shape) and method handlers an MCP-like server wraps, each
// a closure of its own and so an edit of its own; the same closure named alike by the fix lines,
// the trace, the picture and the forked walk; `[weak self]` only for the closure's `self`.

@Suite("Closure naming: one name per closure, none invented")
struct ClosureNamingTests {
  /// The router twin is a library here, as Hummingbird is: named through the options.
  static let options = GraphOptions(libraryModules: GraphOptions.defaultLibraryModules.union(["RouterTwin"]))

  // Needs the binary readers: it checks names read from the symbol tables (BinaryReadersTests

  // checks the names without them).
  #if BinaryReaders
    @Test func sixRouteHandlersAreSixEditsEachNamed() throws {
      let (graph, probe) = walkThenRelease(options: Self.options) {
        let state = ChatAppState()
        state.buildRouter()
        return state
      }
      defer { (probe.object as? ChatAppState)?.router.removeAllRoutes() }
      #expect(probe.object != nil, "the runtime freed the app state: no leak to advise on")
      #expect(graph.predictedLeaks().contains(graph.root), "\(graph.report())")
      let cycle = try #require(graph.cycles.first)
      #expect(graph.cycles.count == 1)
      // Six closures, six edits, each named by its own function, closure #1…#6 in order.
      #expect(cycle.referencesToWeaken == 6)
      #expect(
        cycle.fixPlan.map(\.fix)
          == (1...6).map {
            "capture `[weak self]` in closure #\($0) in ChatAppState.buildRouter() (passed to RouterTwin)"
          })
      #expect(cycle.fixPlan.allSatisfy { $0.idiom == .closureCapture && $0.edges.count == 1 })
      assertGolden(graph.report(), named: "six-route-handlers.report")
      // The picture marks all six references, and names the wrapper closure as the trace does.
      let dot = graph.dot()
      #expect(dot.filter { $0 == "✂" }.count == 6)
      assertGolden(dot, named: "six-route-handlers", pathExtension: "dot")
      #expect(!graph.report().contains("(_:)") && !dot.contains("(_:)\""))
    }
  #endif

  @Test func sixWeakRouteHandlersAreFreed() {
    let (graph, probe) = walkThenRelease(options: Self.options) {
      let state = ChatAppState()
      state.buildRouterWeakly()
      return state
    }
    #expect(probe.object == nil, "the runtime kept the app state")
    #expect(graph.cycles.isEmpty, "\(graph.report())")
    #expect(!graph.predictedLeaks().contains(graph.root))
  }

  // Needs the binary readers: it checks names read from the symbol tables (BinaryReadersTests

  // checks the names without them).
  #if BinaryReaders
    @Test func twoMethodHandlersInAClosureAreTwoEdits() throws {
      let (graph, probe) = walkThenRelease(options: Self.options) {
        let host = ChatToolHost()
        host.registerStrongly()
        return host
      }
      defer { (probe.object as? ChatToolHost)?.server.removeAllHandlers() }
      #expect(probe.object != nil, "the runtime freed the host")
      #expect(graph.predictedLeaks().contains(graph.root), "\(graph.report())")
      let cycle = try #require(graph.cycles.first)
      #expect(
        cycle.fixPlan.map(\.fix) == [
          "capture `[weak self]` in closure #1 in closure #1 in ChatToolHost.registerStrongly() (passed to RouterTwin)",
          "capture `[weak self]` in closure #2 in closure #1 in ChatToolHost.registerStrongly() (passed to RouterTwin)",
        ])
      assertGolden(graph.report(), named: "two-method-handlers.report")
      assertGolden(graph.dot(), named: "two-method-handlers", pathExtension: "dot")
    }
  #endif

  @Test func twoWeakMethodHandlersAreFreed() {
    let (graph, probe) = walkThenRelease(options: Self.options) {
      let host = ChatToolHost()
      host.registerWeakly()
      return host
    }
    #expect(probe.object == nil, "the runtime kept the host")
    #expect(graph.cycles.isEmpty, "\(graph.report())")
  }

  // Needs the binary readers: it checks names read from the symbol tables (BinaryReadersTests

  // checks the names without them).
  #if BinaryReaders
    /// A free function's closure captures the state by a local name (`state`): the binary does not
    /// have that name, so the fix names the type and never says `[weak self]` or a made-up name.
    @Test func aLocalNamedOtherwiseIsNamedByItsType() throws {
      let (graph, probe) = walkThenRelease(options: Self.options) {
        let state = ChatAppState()
        installStatusRoute(state)
        return state
      }
      defer { (probe.object as? ChatAppState)?.router.removeAllRoutes() }
      #expect(probe.object != nil, "the runtime freed the app state")
      #expect(graph.predictedLeaks().contains(graph.root))
      let fix = try #require(graph.cycles.first?.fixPlan.first).fix
      #expect(
        fix
          == "capture the ChatAppState weakly (`[weak …]` with the name it has there) in closure #1 in "
          + "RetainGraphTests.installStatusRoute(_:) (passed to RouterTwin)")
      assertGolden(graph.report(), named: "local-named-otherwise.report")
    }
  #endif

  @Test func aWeakLocalIsFreed() {
    let (graph, probe) = walkThenRelease(options: Self.options) {
      let state = ChatAppState()
      installStatusRouteWeakly(state)
      return state
    }
    #expect(probe.object == nil, "the runtime kept the app state")
    #expect(graph.cycles.isEmpty, "\(graph.report())")
  }

  // Needs the binary readers: it checks names read from the symbol tables (BinaryReadersTests

  // checks the names without them).
  #if BinaryReaders
    /// A closure written in `Lobby` that captures a room: another object than `self`.
    @Test func anotherObjectsCaptureIsNotSelf() throws {
      let lobby = Lobby()
      let (graph, probe) = walkThenRelease(options: Self.options) {
        let room = ChatRoom(name: "general")
        lobby.open(room)
        return room
      }
      defer { (probe.object as? ChatRoom)?.router.removeAllRoutes() }
      #expect(probe.object != nil, "the runtime freed the room")
      #expect(graph.predictedLeaks().contains(graph.root))
      #expect(
        graph.cycles.first?.fixPlan.map(\.fix) == [
          "capture the ChatRoom weakly (`[weak …]` with the name it has there) in closure #1 in Lobby.open(_:) "
            + "(passed to RouterTwin)"
        ])
      let (fixed, fixedProbe) = walkThenRelease(options: Self.options) {
        let room = ChatRoom(name: "general")
        lobby.openWeakly(room)
        return room
      }
      #expect(fixedProbe.object == nil, "the runtime kept the room")
      #expect(fixed.cycles.isEmpty, "\(fixed.report())")
    }
  #endif

  /// The forked walk reads the same closures, and names them alike: its report and picture are the
  /// in-process walk's.
  @Test func theForkedWalkNamesTheClosuresAlike() throws {
    let state = ChatAppState()
    state.buildRouter()
    defer { state.router.removeAllRoutes() }
    let walked = ObjectGraph(reflecting: state, options: Self.options)
    let forked = try ObjectGraph(snapshotting: state, options: Self.options)
    let names = { (graph: ObjectGraph) in
      graph.nodes.filter { $0.kind == .closure }.map { graph.displayName($0.id) }.sorted()
    }
    #expect(names(forked) == names(walked))
    #expect(names(walked).allSatisfy { $0 == "closure #1 in RouterMethods.constructResponder(use:)" })
    #expect(forked.cycles.first?.fixPlan.map(\.fix) == walked.cycles.first?.fixPlan.map(\.fix))
    #expect(forked.report() == walked.report())
    #expect(forked.dot() == walked.dot())
  }

  /// The one function that names a closure: a protocol extension's generic function (the
  /// demangler writes `(extension in Lib):`) and generic clauses are read; no empty name is made.
  @Test func closureNamesFromDemangledSymbols() {
    #expect(
      Advice.closureName(
        "closure #1 in (extension in Hummingbird):Hummingbird.RouterMethods.constructResponder<A where "
          + "A1: Hummingbird.ResponseGenerator>(use: @Sendable (Hummingbird.Request, A.Context) async throws "
          + "-> A1) -> Hummingbird.CallbackResponder<A.Context>")
        == "closure #1 in RouterMethods.constructResponder(use:)")
    #expect(
      Advice.closureName(
        "closure #2 in static (extension in Lib):Lib.Maker< where A: Lib.P>.make(count: Swift.Int) -> ()")
        == "closure #2 in static Maker.make(count:)")
    #expect(
      Advice.closureName("closure #1 in App.Store<A>.Entry.run() -> ()") == "closure #1 in Store.Entry.run()")
    #expect(
      Advice.closureName("closure #1 in App.Person.greeting.getter") == "closure #1 in Person.greeting.getter"
    )
    // Labels already written stay (a name made by hand, or read from JSON).
    #expect(
      Advice.closureName("closure #1 in Logging.Logger.init(label:_:)")
        == "closure #1 in Logger.init(label:_:)")
    // Nothing names the function: what is known, never `(_:)`.
    #expect(
      Advice.closureName("closure #1 in (extension in Lib):(_: Swift.Int) -> ()")
        == "closure #1 in a function of Lib")
    #expect(Advice.closureName("closure #1 in (Swift.Int) -> ()") == "closure #1 in an unnamed function")
    #expect(Advice.closureName("closure at Holder.handler") == "closure at Holder.handler")
    #expect(TypeNames.module(ofNodeNamed: "closure #1 in (extension in Lib):Lib.P.f() -> ()") == "Lib")
  }

  /// Whose instance member a closure is written in, the type a `[weak self]` needs.
  @Test func enclosingInstanceTypes() {
    let cases: [(String, String?)] = [
      ("closure #2 in App.ChatAppState.buildRouter() -> ()", "App.ChatAppState"),
      ("closure #1 in closure #1 in App.Host.register() -> ()", "App.Host"),
      ("closure #1 in App.Store<A>.init(value: A) -> App.Store<A>", "App.Store"),
      ("closure #1 in App.Person.greeting.getter", "App.Person"),
      ("implicit closure #1 in App.Person.name.didset", "App.Person"),
      ("closure #1 in static App.Maker.make() -> ()", nil),
      ("closure #1 in App.installRoutes(_: App.State) -> ()", nil),
      ("closure #1 in (extension in Lib):Lib.RouterMethods.get(_: Swift.String) -> ()", "Lib.RouterMethods"),
      ("closure at Holder.handler", nil),
      ("App.Store", nil),
    ]
    for (symbol, expected) in cases {
      #expect(TypeNames.enclosingInstanceType(ofClosureNamed: symbol) == expected, "\(symbol)")
    }
  }
}

@inline(never) private func walkThenRelease(
  options: GraphOptions, _ make: () -> AnyObject
) -> (ObjectGraph, WeakProbe) {
  let root = make()
  let graph = ObjectGraph(reflecting: root, options: options)
  return (graph, WeakProbe(root))
}
