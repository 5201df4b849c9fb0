internal import Foundation
internal import RetainGraph
internal import Synchronization
internal import Testing

/// What a failure does with its graphs, and how its message says where they are and how to draw them.
///
/// Each graph becomes its DOT text (`NAME.dot`) and its JSON snapshot (`NAME.json`, which
/// `retain-graph render` draws). `NAME` is stable: the test, the graph's subject and a counter
/// (`ProfileTests.moduleIsReleased-Presenter-1`). When ``GraphArtifacts/variable`` names a folder, both
/// files are written there (both frameworks), and so is the HTML page (`NAME.html`, its marked nodes
/// marked) when the command line's renderer is there to make it (see ``GraphArtifacts/pageMaker``);
/// in Swift Testing they are attached to the issue as well.
enum GraphAttachment {
  /// An attachment's file name and text.
  struct File {
    var name: String
    var contents: String
    /// For a JSON snapshot, the nodes its HTML page marks.
    var marks: [Mark] = []
  }

  /// A node a graph's page marks (the holder that grows), and why.
  struct Mark {
    var node: Node.ID
    var note: String
  }

  /// The files of each graph, named after the running test: `testName` when the caller knows it (an
  /// XCTest case's `name`), else as ``GraphArtifacts/testName(at:)`` finds it. `marks` are the nodes
  /// to mark on each graph's page, by graph name.
  static func files(
    for graphs: [(name: String, graph: ObjectGraph)], marks: [String: [Mark]] = [:], at site: CallSite?,
    testName: String? = nil
  ) -> [File] {
    let test = testName ?? GraphArtifacts.testName(at: site)
    return graphs.flatMap { graph -> [File] in
      let base = GraphArtifacts.stableName(test: test, subject: graph.name)
      return [
        File(name: "\(base).dot", contents: graph.graph.dot()),
        File(
          name: "\(base).json", contents: String(decoding: graph.graph.jsonData(), as: UTF8.self),
          marks: marks[graph.name] ?? []),
      ]
    }
  }

  /// Where the graphs went and how to draw one: written to the artifacts folder, attached (Swift
  /// Testing), or how to get them (`attached: false` for the text of the failure a `check…` function returns).
  static func hint(for files: [File], attached: Bool) -> String {
    save(files, attached: attached).hint
  }

  /// Saves the files as ``hint(for:attached:)`` says, and returns that text and the HTML pages made
  /// beside them (to attach as well).
  static func save(_ files: [File], attached: Bool) -> (hint: String, pages: [File]) {
    guard !files.isEmpty else { return ("", []) }
    let variable = GraphArtifacts.variable
    switch GraphArtifacts.write(files) {
    case .written(let folder, let pages, let pageFailure):
      let snapshot = folder.appendingPathComponent(files.first { $0.name.hasSuffix(".json") }?.name ?? "")
      let picture = snapshot.deletingPathExtension().appendingPathExtension("svg")
      let names = (files + pages).map(\.name).joined(separator: ", ")
      let open = pages.first.map {
        "Open \($0.name) in a browser to explore it; to draw it as a picture, run:"
      }
      let failure = pageFailure.map { " (no HTML page: \($0))" } ?? ""
      var hint =
        "Graph: written to \(folder.path)/ (\(names))\(failure). \(open ?? "To draw it, run:")\n"
        + "  \(commandLine) render \(shellQuoted(snapshot.path)) --format svg --output \(shellQuoted(picture.path))"
      // No page made here: the command that makes it, with the marks.
      if pages.isEmpty, let json = files.first(where: { $0.name.hasSuffix(".json") }) {
        let page = snapshot.deletingPathExtension().appendingPathExtension("html")
        let marks = json.marks.map { " --mark \(shellQuoted("\($0.node):\($0.note)"))" }.joined()
        hint +=
          "\nor, for a page to click in a browser:\n"
          + "  \(commandLine) render \(shellQuoted(snapshot.path)) --format html --output \(shellQuoted(page.path))\(marks)"
      }
      return (hint, pages)
    case .failed(let folder, let reason):
      return ("Graph: could not be written to \(folder.path) (\(variable)): \(reason)", [])
    case .off:
      let names = files.map { "`\($0.name)`" }.joined(separator: ", ")
      if attached {
        return (
          "Graph: attached to this issue as \(names). Swift Testing saves attachments only with "
            + "`swift test --attachments-path DIR` (DIR must exist); or set \(variable)=DIR to have them "
            + "written there with the command that draws them.", []
        )
      }
      return (
        "Graph: not saved. Set \(variable)=DIR (a folder; it is created) to have failing checks "
          + "write their graphs there as DOT and JSON snapshots, with the command that draws them.", []
      )
    }
  }

  /// How to start the `retain-graph` command line from wherever the test ran (see
  /// ``commandLine(searchPath:checkout:scratch:)``).
  static let commandLine: String = commandLine(
    searchPath: ProcessInfo.processInfo.environment["PATH"], checkout: checkout, scratch: scratchFolder)

  /// How to start the `retain-graph` command line: the one on the PATH (`make install`) when there
  /// is one; else the one already built in RetainGraph's checkout; else `swift run` of that
  /// checkout (its default traits include the command line), built in `scratch`, never inside the
  /// checkout (a dependency's checkout is not the user's to write in); plain `retain-graph` when the
  /// checkout is gone (a copied test binary).
  static func commandLine(searchPath: String?, checkout: String?, scratch: String) -> String {
    let onThePath = (searchPath ?? "").split(separator: ":").contains {
      FileManager.default.isExecutableFile(atPath: "\($0)/retain-graph")
    }
    guard !onThePath, let checkout else { return "retain-graph" }
    for configuration in ["debug", "release"] {
      let built = "\(checkout)/.build/\(configuration)/retain-graph"
      if FileManager.default.isExecutableFile(atPath: built) { return shellQuoted(built) }
    }
    return
      "swift run --package-path \(shellQuoted(checkout)) --scratch-path \(shellQuoted(scratch)) retain-graph"
  }

  /// Where `swift run` builds the command line when it is not built yet: the user's cache folder.
  static let scratchFolder: String = {
    let environment = ProcessInfo.processInfo.environment
    let cache =
      environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (environment["HOME"].map { $0 + "/.cache" } ?? NSTemporaryDirectory())
    return cache + "/retain-graph/build"
  }()

  /// RetainGraph's checkout: where this file was compiled from, nil when it is gone (a copied test
  /// binary).
  static let checkout: String? = {
    // Sources/RetainGraphTesting/Internal/GraphAttachment.swift → the checkout.
    var checkout = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { checkout.deleteLastPathComponent() }
    let path = checkout.resolvingSymlinksInPath().path
    return FileManager.default.fileExists(atPath: path + "/Package.swift") ? path : nil
  }()

  /// `path` as one shell word.
  static func shellQuoted(_ path: String) -> String {
    let plain = path.unicodeScalars.allSatisfy {
      CharacterSet.alphanumerics.contains($0) || "/._-+=:,@%".unicodeScalars.contains($0)
    }
    return plain ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}

/// The folder that failing checks write their graphs to: `RETAIN_GRAPH_ARTIFACTS`.
package enum GraphArtifacts {
  /// The environment variable that names the folder.
  package static let variable = "RETAIN_GRAPH_ARTIFACTS"

  /// What the folder is, for the code that runs inside ``withSetting(_:_:)``.
  package enum Setting: Sendable {
    /// Read ``variable`` from the environment (the default).
    case environment
    /// Write to this folder, whatever the environment says.
    case folder(String)
    /// Write nothing, whatever the environment says.
    case off
  }

  /// A test hook: `setenv` would race with tests running in parallel, so the package's own tests set
  /// the folder for the code they run (a task-local value; it applies synchronously too).
  @TaskLocal package static var setting: Setting = .environment

  /// Runs `body` with the graphs written according to `setting`.
  package static func withSetting<Result>(_ setting: Setting, _ body: () throws -> Result) rethrows -> Result
  {
    try $setting.withValue(setting, operation: body)
  }

  /// The async twin of ``withSetting(_:_:)``.
  package static func withSetting<Result>(
    _ setting: Setting, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
  ) async rethrows -> Result {
    try await $setting.withValue(setting, operation: body, isolation: isolation)
  }

  enum Outcome {
    /// Written to the folder, with the HTML pages made beside the snapshots, or why none was made
    /// when the command line's renderer was there but failed.
    case written(URL, pages: [GraphAttachment.File], pageFailure: String?)
    case failed(URL, String)
    case off
  }

  /// What makes a snapshot's HTML page, for the code that runs inside ``withPageMaker(_:_:)``.
  package enum PageMaker: Sendable {
    /// The `retain-graph` command line when one is found (see ``pageMaker``), else none.
    case automatic
    /// This `retain-graph` executable.
    case executable(String)
    /// No page.
    case off
  }

  /// A test hook, like ``setting``: what makes the pages.
  @TaskLocal package static var pageMaker: PageMaker = .automatic

  /// Runs `body` with the pages made by `maker`.
  package static func withPageMaker<Result>(_ maker: PageMaker, _ body: () throws -> Result) rethrows
    -> Result
  {
    try $pageMaker.withValue(maker, operation: body)
  }

  /// The folder, absolute (a relative one is relative to the current directory), or nil when off.
  static var folder: URL? {
    let path: String?
    switch setting {
    case .environment: path = ProcessInfo.processInfo.environment[variable]
    case .folder(let folder): path = folder
    case .off: path = nil
    }
    guard let path, !path.isEmpty else { return nil }
    return URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
  }

  /// Writes each file into the folder (creating it), each atomically: a reader never sees half a file.
  static func write(_ files: [GraphAttachment.File]) -> Outcome {
    guard let folder else { return .off }
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      for file in files {
        try Data(file.contents.utf8).write(to: folder.appendingPathComponent(file.name), options: .atomic)
      }
      var pages: [GraphAttachment.File] = []
      var pageFailure: String?
      if let renderer = PageRenderer.find(pageMaker) {
        for file in files where file.name.hasSuffix(".json") {
          switch renderer.page(of: folder.appendingPathComponent(file.name), marks: file.marks) {
          case .success(let page): pages.append(page)
          case .failure(let reason): pageFailure = reason.description
          }
        }
      }
      return .written(folder, pages: pages, pageFailure: pageFailure)
    } catch {
      return .failed(folder, (error as NSError).localizedDescription)
    }
  }

  /// The running test's name: Swift Testing's suite and function (`ProfileTests.moduleIsReleased`);
  /// in XCTest, which does not tell, the calling file and line (`ProfileTests-line42`).
  static func testName(at site: CallSite?) -> String {
    if let test = Test.current {
      return test.id.nameComponents.map { component in
        component.firstIndex(of: "(").map { String(component[..<$0]) } ?? component
      }.joined(separator: ".")
    }
    guard let site else { return "check" }
    let file = String(describing: site.fileID).split(separator: "/").last.map(String.init) ?? "test"
    let stem = file.hasSuffix(".swift") ? String(file.dropLast(6)) : file
    return "\(stem)-line\(site.line)"
  }

  private static let counters = Mutex<[String: Int]>([:])

  /// `test-subject-N`, made of file-name-safe characters, N counting from 1 per test and subject.
  static func stableName(test: String, subject: String) -> String {
    let subject = subject.hasPrefix("retain-graph-") ? String(subject.dropFirst(13)) : subject
    let key = sanitized("\(test)-\(subject)")
    let number = counters.withLock { counters in
      counters[key, default: 0] += 1
      return counters[key, default: 1]
    }
    return "\(key)-\(number)"
  }

  /// Letters, digits, `.`, `_` and `-`; anything else becomes `-` (never two in a row).
  static func sanitized(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      let safe =
        scalar.isASCII
        && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar))
      if safe {
        result.unicodeScalars.append(scalar)
      } else if !result.hasSuffix("-") {
        result += "-"
      }
    }
    return result
  }
}

extension GraphArtifacts {
  /// The command a failure prints to draw its graph (``GraphAttachment/commandLine``), for tests.
  package static var commandLine: String { GraphAttachment.commandLine }

  /// ``GraphAttachment/commandLine(searchPath:checkout:scratch:)``, for tests.
  package static func commandLine(searchPath: String?, checkout: String?, scratch: String) -> String {
    GraphAttachment.commandLine(searchPath: searchPath, checkout: checkout, scratch: scratch)
  }
}
