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
    #expect(
      filesIn(folder) == ["\(stem)-1.dot", "\(stem)-1.json", "\(stem)-2.dot", "\(stem)-2.json"])
    let snapshot = try Data(contentsOf: folder.appendingPathComponent("\(stem)-1.json"))
    let graph = try ObjectGraph(jsonData: snapshot)
    #expect(graph.cycles.count == 1)
    let dot = try String(contentsOf: folder.appendingPathComponent("\(stem)-2.dot"), encoding: .utf8)
    #expect(dot.hasPrefix("digraph"))
    assertGolden(normalizingPaths(seen.text, [folder.path: "$ARTIFACTS"]), named: "swift-testing-written")
    #expect(harness.breakCyclesAndCheckFreed())
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
      verifyDeallocated(timeout: .milliseconds(50)) { harness.make("observer-token") }
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
    XCTAssertEqual(filesIn(folder), ["\(stem).dot", "\(stem).json"])
    let graph = try ObjectGraph(jsonData: Data(contentsOf: folder.appendingPathComponent("\(stem).json")))
    XCTAssertEqual(graph.cycles.count, 1)
    assertGolden(
      normalizingPaths(
        recorded.map(\.description).joined(), [folder.path: "$ARTIFACTS", "-line\(line)-": "-lineLINE-"]),
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
