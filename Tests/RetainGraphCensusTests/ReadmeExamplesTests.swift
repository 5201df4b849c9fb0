import Foundation
import RetainGraph
import RetainGraphCensus
import RetainGraphTesting
import Testing

// README.md's Swift examples that are test code, each inside an `async` test, as written (issue
// 29.6: every example compiles in an async test). `readmeExamplesAreHere` checks that each example's
// statements appear here in order. The fixtures below give the examples' names something to be.
// README's first Swift block (Package.swift) is not test code; the .docc articles' examples are not
// copied here.

@Suite struct ReadmeExamples {
  // README: "Testing for leaks".
  @Test func moduleIsReleased() async {
    await assertNoLeaks { ProfileModule.make(user: .preview) }
  }

  @Test(.detectsLeaks) func presenterIsReleased() async {
    let presenter = track(ProfilePresenter(user: .preview))
    presenter.viewDidLoad()
  }

  @Test func noCyclesWhileOnScreen() async {
    assertNoCycles(ProfileModule.make(user: .preview))
  }

  // README: "Reading the graph yourself".
  @Test func readingTheGraph() async {
    let viewController = ProfileModule.make(user: .preview)
    let presenter = viewController.presenter
    let graph = ObjectGraph(reflecting: viewController)
    print(graph.report())  // "" when there is no cycle
    let cycles = graph.cycles  // every strong cycle
    let leaks = graph.predictedLeaks()  // what stays alive once the root is released
    let json = graph.jsonData()  // JSON for `retain-graph render`
    let node = graph.node(for: presenter)  // the node of a live object the walk reached
    #expect(cycles.isEmpty && leaks.isEmpty && !json.isEmpty && node != nil)
  }

  // README: "Walking a live process".
  @Test func walkingALiveProcess() async throws {
    let sessions = [ProfileModule.make(user: .preview)]
    let graph = try ObjectGraph(snapshotting: sessions, options: GraphOptions(), timeout: .seconds(10))
    // In async code (a request handler, an async test): the same walk, waited for off the cooperative
    // pool; cancelling the task kills the child.
    let sameGraph = try await ObjectGraph.snapshot(of: sessions, timeout: .seconds(10))
    #expect(graph.nodeCount == sameGraph.nodeCount)
  }

  // README: "Heap census".
  @Test(.heapCensus) func reloadingDoesNotLeak() async {
    let feed = Feed()
    let someImage = ReadmeImage()
    await assertNoGrowth(iterations: 5) { await feed.reload() }  // rootless generational analysis
    assertInstances(of: ImageDecoder.self, atMost: 1)  // process-wide
    print(await HeapCensus.searchRetainers(of: someImage))  // off the cooperative pool
  }

  /// Each README example's statements (its lines other than imports, comments, declarations of
  /// suites and tests, and closing braces) appear in this file in the same order.
  @Test func readmeExamplesAreHere() throws {
    let here = URL(fileURLWithPath: #filePath)
    let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    // The README's examples and those of the census's article on using it.
    let blocks = try ["README.md", "Sources/RetainGraphCensus/Documentation.docc/UsingTheCensus.md"].flatMap {
      name in
      Self.swiftBlocks(of: try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8))
    }
    let file = try String(contentsOf: here, encoding: .utf8).split(separator: "\n").map { Self.statement($0) }
    #expect(blocks.count == 4)
    var checked = 0
    for block in blocks where !block.contains(where: { $0.hasPrefix("import PackageDescription") }) {
      var position = file.startIndex
      for line in block.map(Self.statement).filter(Self.isStatement) {
        let found = file[position...].firstIndex(of: line)
        #expect(found != nil, "README line not in ReadmeExamplesTests.swift (or out of order): \(line)")
        position = found.map { $0 + 1 } ?? position
      }
      checked += 1
    }
    #expect(checked == 3)
  }

  /// The lines of each ```swift block.
  static func swiftBlocks(of markdown: String) -> [[String]] {
    var blocks: [[String]] = []
    var current: [String]?
    for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
      if current == nil, line.hasPrefix("```swift") {
        current = []
      } else if current != nil, line.hasPrefix("```") {
        blocks.append(current ?? [])
        current = nil
      } else {
        current?.append(String(line))
      }
    }
    return blocks
  }

  /// A line without its trailing comment and surrounding spaces, with runs of spaces made one.
  static func statement(_ line: some StringProtocol) -> String {
    var text = String(line)
    if let comment = text.range(of: "  //") ?? text.range(of: " //") {
      text = String(text[..<comment.lowerBound])
    }
    return text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
  }

  static func isStatement(_ line: String) -> Bool {
    !(line.isEmpty || line.hasPrefix("import ") || line.hasPrefix("//") || line.hasPrefix("@Suite")
      || line.hasPrefix("@Test") || line == "}")
  }
}

// MARK: - The examples' fixtures

struct ReadmeUser {
  static let preview = ReadmeUser()
}

final class ProfilePresenter {
  let user: ReadmeUser
  weak var view: ProfileViewController?
  init(user: ReadmeUser) { self.user = user }
  func viewDidLoad() {}
}

final class ProfileViewController {
  let presenter: ProfilePresenter
  init(presenter: ProfilePresenter) {
    self.presenter = presenter
    presenter.view = self
  }
}

enum ProfileModule {
  static func make(user: ReadmeUser) -> ProfileViewController {
    ProfileViewController(presenter: ProfilePresenter(user: user))
  }
}

final class ImageDecoder {}

final class ReadmeImage {}

actor Feed {
  private var items: [ReadmeImage] = []
  func reload() {
    items = [ReadmeImage(), ReadmeImage()]
    items.removeAll()
  }
}
