/// A repository whose detail cache holds view models that point back at the repository: the fix is
/// the view models' back reference (one edit, however many entries), never the cache, which the
/// repository alone holds (weakening it would free it at once).
public final class NotesLibrary {
  public let detailCache = NotesDetailCache()
  public init() {}
}

public final class NotesDetailCache {
  /// An array, not a dictionary: a dictionary's order changes from one instance to the next, and
  /// the sample's report is compared whole.
  public var entries: [NoteDetail] = []
}

public final class NoteDetail {
  public let library: NotesLibrary
  init(library: NotesLibrary) { self.library = library }
}

/// A host that owns its server and registers handlers whose closures capture the host (the MCP
/// swift-sdk's shape): the fix is `[weak self]` in the two handlers, not the host's only reference to
/// its server.
public final class MCPToolServer {
  /// In registration order (an array, so that the sample's report is the same every run).
  public var handlers: [(String) -> String] = []
  func register(_ handler: @escaping (String) -> String) { handlers.append(handler) }
}

public final class MCPToolHost {
  public let server = MCPToolServer()
  public var calls = 0
  public init() {
    server.register { request in
      self.calls += 1
      return request
    }
    server.register { request in
      self.calls += 2
      return request
    }
  }
}

extension Sample {
  static let notesCache = Sample(
    name: "notes-cache",
    summary: "a repository's detail cache holds three view models that point back at the repository",
    hasCycle: true
  ) {
    let library = NotesLibrary()
    for _ in 0..<3 { library.detailCache.entries.append(NoteDetail(library: library)) }
    return SampleInstance(root: library, objects: [library, library.detailCache]) { [weak library] in
      library?.detailCache.entries = []
    }
  }

  static let toolHost = Sample(
    name: "tool-host",
    summary: "a host owns its server and registers two handlers whose closures capture the host",
    hasCycle: true
  ) {
    let host = MCPToolHost()
    return SampleInstance(root: host, objects: [host, host.server]) { [weak host] in
      host?.server.handlers = []
    }
  }
}
