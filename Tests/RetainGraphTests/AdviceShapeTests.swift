import RetainGraph
import RetainGraphTestSupport
import Testing

// Self-contained twins of the shapes where counting references gave a fix that frees what it should
// keep: a repository whose cache holds view models pointing back, and a host that owns its server
// and registers handlers capturing itself (the MCP swift-sdk's ToolHost).

final class NotesRepository {
  let detailCache = DetailCache()
}

final class DetailCache {
  var entries: [String: NoteDetailViewModel] = [:]
}

final class NoteDetailViewModel {
  let repository: NotesRepository
  init(repository: NotesRepository) { self.repository = repository }
}

final class ToolServer {
  var handlers: [String: (String) -> String] = [:]
  func register(_ name: String, _ handler: @escaping (String) -> String) { handlers[name] = handler }
}

final class ToolHost {
  let server = ToolServer()
  var calls = 0
  init() {
    server.register("list") { request in
      self.calls += 1
      return request
    }
    server.register("call") { request in
      self.calls += 2
      return request
    }
  }
}

@inline(never) private func repository(entries: Int) -> NotesRepository {
  let repository = NotesRepository()
  for name in ["a", "b", "c"].prefix(entries) {
    repository.detailCache.entries[name] = NoteDetailViewModel(repository: repository)
  }
  return repository
}

@Suite("Advice never frees what a cycle keeps on purpose, and counts edits")
struct AdviceShapeTests {
  /// The fix lines of the graph's one cycle, walked from `root`, after checking with a weak probe
  /// that the runtime keeps the root (the cycle is real).
  private func fixes(_ make: () -> AnyObject) -> [String] {
    let (graph, leaked) = walkThenRelease(make)
    #expect(leaked, "the runtime freed the root: no leak to advise on")
    #expect(graph.cycles.count == 1)
    return graph.cycles.first?.fixPlan.map(\.fix) ?? []
  }

  @Test func aCacheOfOneEntryWeakensTheBackReference() {
    #expect(fixes { repository(entries: 1) } == ["make NoteDetailViewModel.repository weak"])
  }

  @Test func aCacheOfThreeEntriesWeakensTheBackReferenceInOneEdit() {
    // Not "make NotesRepository.detailCache weak": the cache's only holder; it would be freed at once.
    #expect(
      fixes { repository(entries: 3) } == [
        "make NoteDetailViewModel.repository weak (3 references: entries[#0…#2])"
      ])
  }

  @Test func aCacheOfTwoEntriesSaysWhichTwo() {
    #expect(
      fixes { repository(entries: 2) } == [
        "make NoteDetailViewModel.repository weak (2 references: entries[#0, #1])"
      ])
  }

  @Test func theSamePlanFromAViewModel() {
    let made = repository(entries: 3)
    defer { made.detailCache.entries = [:] }
    let fromModel = ObjectGraph(reflecting: made.detailCache.entries["b"]!)
    #expect(
      fromModel.cycles.first?.fixPlan.map(\.fix) == [
        "make NoteDetailViewModel.repository weak (3 references: entries[#0…#2])"
      ])
  }

  // Needs the binary readers: it checks names read from the symbol tables (BinaryReadersTests

  // checks the names without them).
  #if BinaryReaders
    @Test func aHostOwningItsServerWeakensTheHandlersCaptures() {
      // Not "make ToolHost.server weak": the server's only holder. (How the closures are named is
      // the closure-naming tests' business: only the edit is checked here.)
      let lines = fixes { ToolHost() }
      #expect(lines.count == 2)
      #expect(lines.allSatisfy { $0.hasPrefix("capture `[weak self]` in ") })
      #expect(lines.contains { $0.contains(#"ToolServer.handlers["list"]"#) })
      #expect(lines.contains { $0.contains(#"ToolServer.handlers["call"]"#) })
      #expect(!lines.contains { $0.contains("server") })
    }
  #endif
}

/// Walks the graph from what `make` returns, releases it, and tells whether the runtime kept it.
@inline(never) private func walkThenRelease(_ make: () -> AnyObject) -> (ObjectGraph, Bool) {
  weak var probe: AnyObject?
  let graph: ObjectGraph = {
    let root = make()
    probe = root
    return ObjectGraph(reflecting: root)
  }()
  return (graph, probe != nil)
}
