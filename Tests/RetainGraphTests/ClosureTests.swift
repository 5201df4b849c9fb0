import Foundation
import RetainGraphProcess
import RetainGraphRuntime
import RetainGraphTestSupport
import Samples
import Testing

@testable import RetainGraph

#if BinaryReaders
  import RetainGraphImages
#endif

@Suite("Closure captures")
struct ClosureTests {
  static func store(_ closure: Any, in holder: ClosureHolder, _ storage: ClosureStorage, inStruct: Bool) {
    var box = inStruct ? holder.box : ClosureBox()
    func put(_ box: inout ClosureBox) {
      if let async = closure as? () async -> Void, (closure as? () -> Void) == nil {
        box.asyncPlain = async
        return
      }
      guard let sync = closure as? () -> Void else { return }
      switch storage {
      case .property: box.plain = sync
      case .any: box.any = sync
      case .array: box.array = [sync]
      case .dictionary: box.dictionary = ["done": sync]
      }
    }
    put(&box)
    if inStruct {
      holder.box = box
    } else {
      holder.plain = box.plain
      holder.asyncPlain = box.asyncPlain
      holder.any = box.any
      holder.array = box.array
      holder.dictionary = box.dictionary
    }
  }

  // Needs the binary readers: it expects no note, and without them a graph with a closure notes

  // the names it did not read.
  #if BinaryReaders
    @Test(arguments: CaptureStyle.allCases, ClosureStorage.allCases)
    func matrix(style: CaptureStyle, storage: ClosureStorage) {
      for inStruct in [false, true] {
        // Built in a function so that no local of the test holds the closure or what it captures.
        func make() -> (ClosureHolder?, Bool, Ownership?) {
          let holder = ClosureHolder()
          let (closure, retains, ownership) = style.closure(capturing: holder, leaf: Leaf())
          Self.store(closure, in: holder, storage, inStruct: inStruct)
          return (holder, retains, ownership)
        }
        var (holder, retains, ownership) = make()
        let where_ = "\(style) in \(storage)\(inStruct ? " in a struct" : "")"

        var (graph, objects) = ObjectGraph.walk(holder as Any)
        #expect(graph.walkNotes.isEmpty, "\(where_): \(graph.walkNotes)")
        let intoRoot = graph.edges.filter { $0.to == 0 }
        #expect(
          Set(intoRoot.map(\.ownership)) == Set([ownership].compactMap { $0 }),
          "\(where_): \(graph.edgeDescriptions)")
        #expect(graph.cycles.isEmpty != retains, "\(where_)")
        if style == .mixed {
          #expect(
            graph.edges.contains { graph.nodes[$0.to].shortTypeName == "Leaf" && $0.ownership == .strong })
        }
        if style == .strong, storage == .property {
          let path = inStruct ? "box.plain" : "plain"
          #expect(intoRoot.map(\.label) == ["\(path) (closure) → capture 0"])
        }

        let probes = objects.map(WeakProbe.init)
        let predicted = graph.predictedLeaks().filter { graph.nodes[$0].kind == .object }
        objects = []
        holder = nil
        // A parallel census test's heap-wide retain (a rootless growth check holds the newest
        // instance of each type it counted, this test's too while the census records) keeps an
        // object alive for a while: the probes are read with none running (a whole-suite run
        // failed the last check once under load without this).
        HeapWideRetains.excluded(waitingUntil: .now.advanced(by: .seconds(120))) { quiet in
          #expect(quiet, "a heap-wide retain still ran after 120 s")
          let survivors = probes.indices.filter { probes[$0].object != nil }
          #expect(survivors == predicted, "\(where_)")
        }
        for probe in probes { (probe.object as? ClosureHolder)?.clear() }
        HeapWideRetains.excluded(waitingUntil: .now.advanced(by: .seconds(120))) { _ in
          #expect(probes.allSatisfy { $0.object == nil }, "\(where_)")
        }
        graph = ObjectGraph(reflecting: ())
        (retains, ownership) = (false, nil)
      }
    }
  #endif

  @Test func closureNodesNameTheirHolderAndCaptures() {
    let holder = ClosureHolder()
    let leaf = Leaf()
    holder.plain = { [weak holder] in _ = (holder, leaf) }
    let graph = ObjectGraph(reflecting: holder)
    let closure = graph.nodes.first { $0.kind == .closure }
    #expect(closure != nil)
    #expect(
      graph.edgeDescriptions.contains(
        "ClosureHolder.plain (closure) -> \(closure?.shortTypeName ?? "") (strong)"))
    #expect(graph.edges.contains { $0.label == "capture 0" && $0.ownership == .weak })
    #expect(graph.edges.contains { $0.label == "capture 1" && $0.ownership == .strong })
    holder.clear()
  }

  // Needs the binary readers: it expects no note, and without them a graph with a closure notes

  // the names it did not read.
  #if BinaryReaders
    @Test func syncClosureStoredAsAsyncIsFollowed() {
      final class Runner {
        var work: (() async -> Void)?
      }
      let runner = Runner()
      let leaf = Leaf()
      let sync: () -> Void = { [weak runner] in _ = (runner, leaf) }
      runner.work = sync
      let graph = ObjectGraph(reflecting: runner)
      #expect(graph.walkNotes.isEmpty, "\(graph.walkNotes)")
      #expect(graph.edges.contains { $0.to == 0 && $0.ownership == .weak }, "\(graph.edgeDescriptions)")
      #expect(graph.edges.contains { graph.nodes[$0.to].shortTypeName == "Leaf" && $0.ownership == .strong })
    }
  #endif

  // Needs the binary readers: it expects no note, and without them a graph with a closure notes

  // the names it did not read.
  #if BinaryReaders
    /// A closure made in code generic over a parameter pack (issue 19.5, FlyingFox's route handlers):
    /// its context stores the pack's length and its metadata pack, and captures the pack's values as
    /// a tuple. Read like other generic contexts, checked against the runtime after release.
    @Test(arguments: [0, 1, 3])
    func packGenericContextsAreRead(packLength: Int) {
      func make() -> (PackRouterOwner?, [WeakProbe]) {
        let leaf = Leaf()
        let owner = PackRouterOwner(capturingSelf: true, packLength: packLength, leaf: leaf)
        return (owner, [WeakProbe(owner), WeakProbe(owner.router), WeakProbe(leaf)])
      }
      var (owner, probes) = make()
      let graph = ObjectGraph(reflecting: owner as Any)
      #expect(graph.walkNotes.isEmpty, "\(graph.walkNotes)")
      let closure = graph.nodes.first { $0.kind == .closure }
      #expect(closure?.typeName.hasPrefix("closure #1 in RetainGraphTests.PackRouter.append<each A>") == true)
      #expect(graph.cycles.count == 1)
      let intoLeaf = graph.edges.filter { graph.nodes[$0.to].shortTypeName == "Leaf" }
      // The pack's values are one tuple (a one-element tuple is its element): `capture 1`, `capture 1.2`.
      let expected = [0: [], 1: ["capture 1"], 3: ["capture 1.1", "capture 1.2"]][packLength]
      #expect(intoLeaf.map(\.label) == expected, "\(graph.edgeDescriptions)")
      #expect(intoLeaf.allSatisfy { $0.ownership == .strong })
      let predicted = Set(
        graph.predictedLeaks().map(graph.node).filter { $0.kind == .object }.map(\.shortTypeName))
      owner = nil
      #expect(probes[0].object != nil && probes[1].object != nil)
      #expect(predicted == Set(["PackRouterOwner", "PackRouter"] + (packLength >= 1 ? ["Leaf"] : [])))
      #expect((probes[2].object != nil) == (packLength >= 1))
      (probes[1].object as? PackRouter)?.handlers.removeAll()
      #expect(probes.allSatisfy { $0.object == nil })
    }
  #endif

  // Needs the binary readers: it expects no note, and without them a graph with a closure notes

  // the names it did not read.
  #if BinaryReaders
    /// The twin whose handler does not capture its owner: no cycle, nothing predicted.
    @Test func packGenericContextWithoutSelfIsFree() {
      var owner: PackRouterOwner? = PackRouterOwner(capturingSelf: false, packLength: 3, leaf: Leaf())
      let probe = WeakProbe(owner!)
      let graph = ObjectGraph(reflecting: owner as Any)
      #expect(graph.walkNotes.isEmpty, "\(graph.walkNotes)")
      #expect(graph.cycles.isEmpty)
      #expect(graph.predictedLeaks().isEmpty)
      #expect(graph.edges.contains { graph.nodes[$0.to].shortTypeName == "Leaf" && $0.ownership == .strong })
      owner = nil
      #expect(probe.object == nil)
    }
  #endif

  @Test func closuresCanBeTurnedOff() throws {
    let instance = try #require(Sample.named("lazy-closure")).make()
    defer { instance.breakCycles() }
    let graph = ObjectGraph(reflecting: instance.root, options: GraphOptions(includeClosures: false))
    #expect(graph.cycles.isEmpty)
    #expect(graph.edges.isEmpty)
  }

  // Needs the binary readers: it checks names read from the symbol tables (BinaryReadersTests

  // checks the names without them).
  #if BinaryReaders
    @Test func closureSamples() throws {
      // Each report (with its fix) is compared whole with a golden file.
      let expectations: [(String, [String])] = [
        ("lazy-closure", ["greeting (closure) → capture 0"]),
        ("method-reference", ["service", "completion (method UseCase.handleResponse(_:))"]),
        ("observer-token", ["notifier", "observers[0] (closure) → capture 0"]),
      ]
      for (name, labels) in expectations {
        let instance = try #require(Sample.named(name)).make()
        defer { instance.breakCycles() }
        let graph = ObjectGraph(reflecting: instance.root)
        #expect(graph.cycles.count == 1, "\(name)")
        let cycle = try #require(graph.cycles.first)
        #expect((cycle.pathFromRoot + cycle.path).map(\.label) == labels, "\(name)")
        assertGolden(graph.report(), named: "\(name).report")
      }
    }
  #endif
}

@Suite("Closure names")
struct ClosureNameTests {
  // Needs the binary readers: it checks names read from the symbol tables (BinaryReadersTests
  // checks the names without them).
  #if BinaryReaders
    @Test func closureNodesAreNamedAfterTheirFunction() throws {
      let instance = try #require(Sample.named("greeter")).make()
      let graph = ObjectGraph(reflecting: instance.root)
      let closure = try #require(graph.nodes.first { $0.kind == .closure })
      #expect(
        closure.typeName.hasPrefix("closure #1 in Samples.Greeter.init(name: Swift.String)"),
        "\(closure.typeName)")
    }
  #endif

  @Test func demangledNamesAreSimplified() {
    #expect(
      SymbolNames.simplify("closure #1 () -> Swift.String in App.Person.greeting.getter : () -> Swift.String")
        == "closure #1 in App.Person.greeting.getter")
    #expect(SymbolNames.simplify("App.Person.run() -> ()") == "App.Person.run() -> ()")
    // Nested closures, and a private type (`(Box in _D7F0…)`) in a closure's signature.
    #expect(
      SymbolNames.simplify(
        "closure #1 @Sendable (App.(Box in _D7F0)) -> () in closure #2 (inout [Swift.Int : App.(Box in _D7F0)])"
          + " -> Swift.Int in App.Center.add<A>(_: A) -> App.Token")
        == "closure #1 in closure #2 in App.Center.add<A>(_: A) -> App.Token")
    #expect(
      Advice.closureName(
        "closure #1 in closure #2 in App.Center.add<A>(_: App.(Box in _D7F0), at: Swift.Int) -> ()")
        == "closure #1 in closure #2 in Center.add(_:at:)")
  }

  /// An optimised build names a closure with the specialisation and the copy it made; the names
  /// are the closure's as written, the same as in a debug build.
  @Test func optimisedNamesAreSimplified() {
    #expect(
      SymbolNames.simplify(
        "generic not re-abstracted specialization <Swift.Array<App.Price>> of closure #1 (A) -> () in "
          + "App.Store.subscribe((A) -> ()) -> () with unmangled suffix \".20\"")
        == "closure #1 in App.Store.subscribe((A) -> ()) -> ()")
    #expect(
      SymbolNames.simplify(
        "partial apply forwarder for generic specialization <Pack{Swift.Int, Swift.String}> of closure #1 "
          + "(Swift.String) -> () in App.Router.append<each A>((Swift.String, repeat A) -> (), repeat A) -> ()"
      )
        == "closure #1 in App.Router.append<each A>((Swift.String, repeat A) -> (), repeat A) -> ()")
    #expect(
      SymbolNames.simplify(
        "function signature specialization <Arg[0] = Owned To Guaranteed> of closure #1 () -> () in App.A.run() -> ()"
      )
        == "closure #1 in App.A.run() -> ()")
    #expect(SymbolNames.simplify("App.specialization <Int> of") == "App.specialization <Int> of")
  }

  /// Private declarations are named as written, without their discriminator.
  @Test func privateNamesLoseTheirDiscriminator() {
    #expect(
      SymbolNames.simplify(
        "closure #1 () -> () in App.ChatViewModel.(setUp in _C654A129CC2DF9B3)(service: App.(Service in _AB12)) -> ()"
      )
        == "closure #1 in App.ChatViewModel.setUp(service: App.Service) -> ()")
    #expect(
      MethodReference.method(
        closureName: "implicit closure #2 in implicit closure #1 in App.CartViewModel.init(store: App.Store)",
        objectType: "App.CartViewModel",
        callees: {
          ["App.CartViewModel.(handlePrices in _C654A129CC2DF9B3C405B93AFCE73431)(_: [App.Price]) -> ()"]
        })
        == "CartViewModel.handlePrices(_:)")
    #expect(
      MethodReference.method(
        closureName: "implicit closure #2 in implicit closure #1 in App.A.init()", objectType: "App.A",
        callees: { ["App.A.update(with: (Swift.Int) -> (), at: Swift.Int) -> ()"] }) == "A.update(with:at:)")
    #expect(
      Advice.closureName("closure #2 in static App.SinkViewModel.make(count: Swift.Int) -> App.SinkViewModel")
        == "closure #2 in static SinkViewModel.make(count:)")
    #expect(
      Advice.closureName(
        "closure #1 in App.Router.append<each A>((Swift.String, repeat A) -> (), repeat A) -> ()")
        == "closure #1 in Router.append(_:_:)")
  }

  /// An optimised build inlines a method into the curry thunk, or merges it with an identical
  /// method of another type: the candidates then come from the DWARF and the merged twins, asked
  /// only when no direct call names a method of the object's type.
  @Test func methodReferencesFromOptimisedCandidates() {
    let thunk = "implicit closure #2 in implicit closure #1 in App.UseCase.start() -> ()"
    #expect(
      MethodReference.method(
        closureName: thunk, objectType: "App.UseCase",
        callees: { ["App.FixedUseCase.handleResponse(Swift.Int) -> ()"] },
        inlined: {
          ["App.FixedUseCase.handleResponse(Swift.Int) -> ()", "App.UseCase.handleResponse(Swift.Int) -> ()"]
        })
        == "UseCase.handleResponse(_:)")
    #expect(
      MethodReference.method(
        closureName: thunk, objectType: "App.PriceList", callees: { [] },
        inlined: { ["merged App.PriceList.handlePrices([Swift.Int]) -> ()"] }) == "PriceList.handlePrices(_:)"
    )
    // A direct call that names the method wins; the optimised candidates are not asked for.
    #expect(
      MethodReference.method(
        closureName: thunk, objectType: "App.UseCase",
        callees: { ["App.UseCase.handleResponse(Swift.Int) -> ()"] },
        inlined: {
          Issue.record("asked for the optimised candidates")
          return []
        }) == "UseCase.handleResponse(_:)")
    #expect(
      MethodReference.method(
        closureName: thunk, objectType: "App.UseCase", callees: { [] },
        inlined: { ["App.CartViewModel.handlePrices([App.Price]) -> ()"] }) == nil)
  }

  // Reads the DWARF (RetainGraphImages): only in a build with the binary readers.
  #if BinaryReaders
    /// The image's DWARF is read whole: a debug build's test binary still has functions with inlined
    /// code (the test macros' async bodies), each named by its origin's linkage name. (The release
    /// check, `make test-release`, is where a method is found only this way.)
    @Test func inlinedFunctionsAreReadFromTheDWARF() throws {
      let path = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
      let debugInfo = ImageCatalogue.image(atPath: path).debugInfo
      let starts = debugInfo.functionsWithInlinedCode
      #expect(starts.count > 100, "\(starts.count) functions with inlined code")
      // Swift symbols, beside the compiler's artificial functions (`__unknown_macro__`,
      // `__swift_continuation_await_point`).
      let names = starts.flatMap { debugInfo.inlinedFunctions(at: $0) }
      let swiftNames = names.filter { $0.hasPrefix("$s") }
      #expect(
        swiftNames.count > 100 && swiftNames.count * 2 > names.count, "\(swiftNames.count) of \(names.count)")
      #expect(swiftNames.allSatisfy { SymbolNames.demangled($0) != nil })
      #expect(debugInfo.inlinedFunctions(at: 1).isEmpty)
      #expect(ImageCatalogue.image(atPath: "/nonexistent").debugInfo.functionsWithInlinedCode.isEmpty)
    }
  #endif

  @Test func modulesOfNodeNames() {
    #expect(
      TypeNames.module(ofNodeNamed: "OpenCombine.Subscribers.Assign<App.Model, Swift.Int>") == "OpenCombine")
    #expect(
      TypeNames.module(ofNodeNamed: "implicit closure #2 in implicit closure #1 in Lib.A.init()") == "Lib")
    #expect(TypeNames.module(ofNodeNamed: "closure #1 in closure #2 in App.Store.run() -> ()") == "App")
    #expect(TypeNames.module(ofNodeNamed: "closure at Holder.handler") == nil)
    #expect(TypeNames.module(ofNodeNamed: "(Swift.Int, App.Item)") == nil)
  }
}

/// A router generic over a parameter pack, as FlyingFox 0.27.1 stores a `:id` route's handler:
/// the stored closure is made inside `append`, not specialised.
final class PackRouter {
  var handlers: [(String) -> Void] = []

  @inline(never)
  func append<each P>(_ handler: @escaping (String, repeat each P) -> Void, _ values: repeat each P) {
    handlers.append { path in handler(path, repeat each values) }
  }
}

/// Owns a router whose handler captures `self` strongly (or not), with 0, 1 or 3 pack values.
final class PackRouterOwner {
  let router = PackRouter()
  var hits = 0

  init(capturingSelf: Bool, packLength: Int, leaf: Leaf) {
    switch (capturingSelf, packLength) {
    case (true, 0): router.append({ (_: String) in self.hits += 1 })
    case (true, 1): router.append({ (_: String, _: Leaf) in self.hits += 1 }, leaf)
    case (true, _): router.append({ (_: String, n: Int, _: Leaf, _: Leaf) in self.hits += n }, 1, leaf, leaf)
    case (false, _): router.append({ (_: String, _: Int, _: Leaf, _: Leaf) in }, 1, leaf, leaf)
    }
  }
}
