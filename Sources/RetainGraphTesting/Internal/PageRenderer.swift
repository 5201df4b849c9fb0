internal import Foundation
internal import RetainGraph

/// The `retain-graph` command line, run to make a failing check's HTML page from its JSON snapshot:
/// the page needs Graphviz, which the testing library never links, and the command line has it.
struct PageRenderer {
  /// Why a page was not made.
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// The `retain-graph` executable.
  let executable: String

  /// The longest a render may take before it is stopped: Graphviz lays out the 200 nodes a page
  /// draws by default in about a second.
  static let timeout: TimeInterval = 60

  /// The renderer `maker` asks for, nil for none.
  static func find(_ maker: GraphArtifacts.PageMaker) -> PageRenderer? {
    switch maker {
    case .off: nil
    case .executable(let path): PageRenderer(executable: path)
    case .automatic: automatic
    }
  }

  /// The command line built in RetainGraph's checkout (`swift build`: debug, then release), else
  /// `retain-graph` on the PATH (`make install`); nil when there is none.
  static let automatic: PageRenderer? = {
    var candidates: [String] = []
    if let checkout = GraphAttachment.checkout {
      candidates += ["debug", "release"].map { "\(checkout)/.build/\($0)/retain-graph" }
    }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    candidates += path.split(separator: ":").map { "\($0)/retain-graph" }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map(PageRenderer.init)
  }()

  /// Makes the page of the snapshot at `snapshot` beside it (`NAME.html` for `NAME.json`), `marks`
  /// marked, and returns it.
  func page(of snapshot: URL, marks: [GraphAttachment.Mark]) -> Result<GraphAttachment.File, Failure> {
    let page = snapshot.deletingPathExtension().appendingPathExtension("html")
    let errors = FileManager.default.temporaryDirectory.appendingPathComponent(
      "retain-graph-page-\(UUID().uuidString).log")
    defer { try? FileManager.default.removeItem(at: errors) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments =
      ["render", snapshot.path, "--format", "html", "--output", page.path]
      + marks.flatMap { ["--mark", "\($0.node):\($0.note)"] }
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    do {
      try Data().write(to: errors)
      process.standardError = try FileHandle(forWritingTo: errors)
      try process.run()
    } catch {
      return .failure(
        Failure(description: "\(executable) could not be started: \(error.localizedDescription)"))
    }
    let deadline = Date().addingTimeInterval(Self.timeout)
    while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
    if process.isRunning {
      process.terminate()
      process.waitUntilExit()
      return .failure(Failure(description: "\(executable) took more than \(Int(Self.timeout)) s"))
    }
    process.waitUntilExit()
    guard process.terminationReason == .exit, process.terminationStatus == 0 else {
      let message = (try? String(contentsOf: errors, encoding: .utf8))?.split(separator: "\n").first
      return .failure(
        Failure(
          description: "\(executable) exited with status \(process.terminationStatus)"
            + (message.map { ": \($0)" } ?? "")))
    }
    guard let contents = try? String(contentsOf: page, encoding: .utf8) else {
      return .failure(Failure(description: "\(executable) wrote no \(page.lastPathComponent)"))
    }
    return .success(GraphAttachment.File(name: page.lastPathComponent, contents: contents))
  }
}
