import Foundation
import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Samples
import Testing
import XCTest

// `RETAIN_GRAPH_ARTIFACTS` is read from the environment; these tests set the folder for the code
// they run through the package's task-local hook (`GraphArtifacts.withSetting`) instead, because
// `setenv` would change it for every test running in parallel.

/// A new, empty folder under the temporary directory, not created yet (the checks create it).
func freshArtifactsFolder() -> URL {
  FileManager.default.temporaryDirectory
    .appendingPathComponent("retain-graph-artifacts-\(UUID().uuidString)")
    .appendingPathComponent("nested")
}

/// The files in `folder`, sorted.
func filesIn(_ folder: URL) -> [String] {
  ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
}

@Suite("Graphs of failing checks in RETAIN_GRAPH_ARTIFACTS (Swift Testing)")
struct GraphArtifactsSwiftTestingTests {
  @Test func aFailingCheckWritesDOTAndJSONAndPrintsTheCommand() throws {
    let folder = freshArtifactsFolder()
    defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
    let harness = SampleHarness()
    let seen = SeenIssues()
    GraphArtifacts.withSetting(.folder(folder.path)) {
      withKnownIssue {
        assertDeallocated(timeout: .milliseconds(100)) { harness.make("retain-cycle") }
        assertDeallocated(timeout: .milliseconds(100)) { harness.make("retain-cycle") }
      } matching: { issue in
        seen.see(issue)
      }
    }
    let stem = "GraphArtifactsSwiftTestingTests.aFailingCheckWritesDOTAndJSONAndPrintsTheCommand-CycleA"
    // The checkout's built command line made each graph's page.
    #expect(
      filesIn(folder) == [
        "\(stem)-1.dot", "\(stem)-1.html", "\(stem)-1.json", "\(stem)-2.dot", "\(stem)-2.html",
        "\(stem)-2.json",
      ])
    let page = try String(contentsOf: folder.appendingPathComponent("\(stem)-1.html"), encoding: .utf8)
    #expect(page.hasPrefix("<!DOCTYPE html>"))
    #expect(page.contains("<title>n0</title>") && page.contains("<title>n1</title>"))
    let snapshot = try Data(contentsOf: folder.appendingPathComponent("\(stem)-1.json"))
    let graph = try ObjectGraph(jsonData: snapshot)
    #expect(graph.cycles.count == 1)
    let dot = try String(contentsOf: folder.appendingPathComponent("\(stem)-2.dot"), encoding: .utf8)
    #expect(dot.hasPrefix("digraph"))
    assertGolden(
      normalizingPaths(seen.text, [folder.path: "$ARTIFACTS", GraphArtifacts.commandLine: "$RETAIN_GRAPH"]),
      named: "swift-testing-written")
    #expect(harness.breakCyclesAndCheckFreed())
  }

  /// A growth failure's page marks the objects whose property keeps collecting the growing ones.
  @Test func aGrowthFailuresPageMarksTheHolderThatGrows() throws {
    let folder = freshArtifactsFolder()
    defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
    let dashboard = Dashboard(removesObservers: false)
    let text = try #require(
      GraphArtifacts.withSetting(.folder(folder.path)) {
        checkNoGrowth(of: dashboard) { $0.openAndCloseScreen() }?.description
      })
    let stem = "GraphArtifactsSwiftTestingTests.aGrowthFailuresPageMarksTheHolderThatGrows-Dashboard-run4-1"
    #expect(filesIn(folder) == ["\(stem).dot", "\(stem).html", "\(stem).json"])
    #expect(text.contains("(\(stem).dot, \(stem).json, \(stem).html). Open \(stem).html in a browser"))
    // The holder, found in the snapshot: what holds the Observers through `observers`.
    let graph = try ObjectGraph(jsonData: Data(contentsOf: folder.appendingPathComponent("\(stem).json")))
    let holders = Set(
      graph.edges.filter { $0.property == "observers" && graph.node($0.to).shortTypeName == "Observer" }.map(
        \.from))
    #expect(holders.count == 1)
    let holder = try #require(holders.first)
    #expect(graph.node(holder).shortTypeName == "EventBus")
    let page = try String(contentsOf: folder.appendingPathComponent("\(stem).html"), encoding: .utf8)
    #expect(page.contains("{\"root\":0,\"marks\":[\(holder)],"))
    #expect(
      page.contains(
        "<li class=\"mark\"><button type=\"button\" class=\"node-link\" data-node=\"\(holder)\">EventBus</button> "
          + "EventBus.observers grows by 1 per run</li>"))
    dashboard.bus.observers.removeAll()
  }

  /// Without a command line to make it, no page, and the message is as it was; a command line that
  /// fails says why in the message.
  @Test func withoutTheCommandLineThereIsNoPage() throws {
    let folder = freshArtifactsFolder()
    defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
    let harness = SampleHarness()
    let (off, broken) = GraphArtifacts.withSetting(.folder(folder.path)) {
      (
        GraphArtifacts.withPageMaker(.off) {
          checkDeallocated(timeout: .milliseconds(50)) { harness.make("retain-cycle") }?.description
        },
        GraphArtifacts.withPageMaker(.executable("/bin/false")) {
          checkDeallocated(timeout: .milliseconds(50)) { harness.make("retain-cycle") }?.description
        }
      )
    }
    let stem = "GraphArtifactsSwiftTestingTests.withoutTheCommandLineThereIsNoPage-CycleA"
    #expect(
      filesIn(folder) == ["\(stem)-1.dot", "\(stem)-1.json", "\(stem)-2.dot", "\(stem)-2.json"])
    #expect(
      off?.contains("Graph: written to \(folder.path)/ (\(stem)-1.dot, \(stem)-1.json). To draw it, run:\n")
        == true)
    let offText = normalizingPaths(
      off ?? "", [folder.path: "$ARTIFACTS", GraphArtifacts.commandLine: "$RETAIN_GRAPH"])
    #expect(
      offText.hasSuffix(
        "\nor, for a page to click in a browser:\n  $RETAIN_GRAPH render "
          + "$ARTIFACTS/\(stem)-1.json --format html --output $ARTIFACTS/\(stem)-1.html"), "\(offText)")
    #expect(
      broken?.contains(
        "(\(stem)-2.dot, \(stem)-2.json) (no HTML page: /bin/false exited with status 1). To draw it, run:\n")
        == true, "\(broken ?? "")")
    #expect(harness.breakCyclesAndCheckFreed())
  }

  /// Without a page made, a growth failure prints the command that makes it, its holder marked.
  @Test func withoutAPageAGrowthFailurePrintsTheCommandWithItsMarks() throws {
    let folder = freshArtifactsFolder()
    defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
    let dashboard = Dashboard(removesObservers: false)
    let text = try #require(
      GraphArtifacts.withSetting(.folder(folder.path)) {
        GraphArtifacts.withPageMaker(.off) {
          checkNoGrowth(of: dashboard) { $0.openAndCloseScreen() }?.description
        }
      })
    assertGolden(
      normalizingPaths(text, [folder.path: "$ARTIFACTS", GraphArtifacts.commandLine: "$RETAIN_GRAPH"]),
      named: "growth-without-page")
    dashboard.bus.observers.removeAll()
  }

  /// The command a failure prints to draw its graph: the one on the PATH first, then the one built in
  /// the checkout, then `swift run` built outside the checkout (issue 29, item 8: it built inside
  /// RetainGraph's checkout, 77 s, even with `retain-graph` on the PATH).
  @Test func theCommandThatDrawsIsTheOneOnThePathAndNeverBuildsInTheCheckout() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "rg-command-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let bin = root.appendingPathComponent("bin")
    let checkout = root.appendingPathComponent("check out")
    try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: checkout, withIntermediateDirectories: true)
    let scratch = root.appendingPathComponent("cache/retain-graph/build").path
    func executable(at url: URL) throws {
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data("#!/bin/sh\n".utf8).write(to: url)
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
    }
    // Nothing built, nothing on the PATH: swift run, built in the scratch folder.
    let unbuilt = GraphArtifacts.commandLine(searchPath: bin.path, checkout: checkout.path, scratch: scratch)
    #expect(
      unbuilt == "swift run --package-path '\(checkout.path)' --scratch-path \(scratch) retain-graph")
    #expect(!scratch.hasPrefix(checkout.path))
    // Built in the checkout: that executable, nothing to build.
    try executable(at: checkout.appendingPathComponent(".build/debug/retain-graph"))
    #expect(
      GraphArtifacts.commandLine(searchPath: bin.path, checkout: checkout.path, scratch: scratch)
        == "'\(checkout.path)/.build/debug/retain-graph'")
    // On the PATH: the plain name, whatever the checkout has.
    try executable(at: bin.appendingPathComponent("retain-graph"))
    #expect(
      GraphArtifacts.commandLine(
        searchPath: "/nonexistent:\(bin.path)", checkout: checkout.path, scratch: scratch)
        == "retain-graph")
    // No checkout (a copied test binary): the plain name.
    #expect(GraphArtifacts.commandLine(searchPath: nil, checkout: nil, scratch: scratch) == "retain-graph")
  }

  @Test func withoutTheFolderTheMessageSaysHowToSaveAttachments() {
    let harness = SampleHarness()
    let seen = SeenIssues()
    GraphArtifacts.withSetting(.off) {
      withKnownIssue {
        assertNoCycles(harness.make("lazy-closure"))
      } matching: { issue in
        seen.see(issue)
      }
    }
    assertGolden(seen.text, named: "swift-testing-off")
    #expect(harness.breakCyclesAndCheckFreed())
  }

  @Test func aFolderThatCannotBeCreatedIsReportedNotFatal() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "retain-graph-\(UUID().uuidString)")
    try Data("not a folder".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let harness = SampleHarness()
    let text = GraphArtifacts.withSetting(.folder(file.appendingPathComponent("sub").path)) {
      checkDeallocated(timeout: .milliseconds(50)) { harness.make("observer-token") }?.description
    }
    #expect(
      text?.contains("Graph: could not be written to \(file.path)/sub (RETAIN_GRAPH_ARTIFACTS)") == true)
    #expect(harness.breakCyclesAndCheckFreed())
  }
}

final class GraphArtifactsXCTests: FailureCapturingTestCase {
  func testAFailingCheckWritesDOTAndJSONAndPrintsTheCommand() throws {
    let folder = freshArtifactsFolder()
    defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
    let harness = SampleHarness()
    let line = #line + 3
    let recorded = GraphArtifacts.withSetting(.folder(folder.path)) {
      failures {
        assertNoCycles(harness.make("method-reference"))
      }
    }
    XCTAssertEqual(recorded.map(\.line), [line])
    let stem = "GraphArtifactsTests-line\(line)-UseCase-1"
    XCTAssertEqual(filesIn(folder), ["\(stem).dot", "\(stem).html", "\(stem).json"])
    let graph = try ObjectGraph(jsonData: Data(contentsOf: folder.appendingPathComponent("\(stem).json")))
    XCTAssertEqual(graph.cycles.count, 1)
    let page = try String(contentsOf: folder.appendingPathComponent("\(stem).html"), encoding: .utf8)
    XCTAssertTrue(page.contains("<title>n1</title>"))
    assertGolden(
      normalizingPaths(
        recorded.map(\.description).joined(),
        [
          folder.path: "$ARTIFACTS", GraphArtifacts.commandLine: "$RETAIN_GRAPH",
          "-line\(line)-": "-lineLINE-",
        ]),
      named: "xctest-written")
    XCTAssertTrue(harness.breakCyclesAndCheckFreed())
  }

  func testWithoutTheFolderTheMessageSaysHowToTurnItOn() {
    let harness = SampleHarness()
    let recorded = GraphArtifacts.withSetting(.off) {
      failures {
        assertNoCycles(harness.make("method-reference"))
      }
    }
    XCTAssertEqual(recorded.count, 1)
    assertGolden(recorded.map(\.description).joined(), named: "xctest-off")
    XCTAssertTrue(harness.breakCyclesAndCheckFreed())
  }
}
