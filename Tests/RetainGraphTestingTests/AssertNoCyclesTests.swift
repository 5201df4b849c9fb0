import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Samples
import Testing
import XCTest

@Suite("assertNoCycles in Swift Testing")
struct AssertNoCyclesSwiftTestingTests {
  @Test func reportsTheLeakTraceAtTheCallersLine() throws {
    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    let seen = SeenIssues()
    let expectedLine = #line + 2
    withKnownIssue {
      assertNoCycles(instance.root)
    } matching: { issue in
      issue.sourceLocation?.line == expectedLine && seen.see(issue)
    }
    assertGolden(seen.text, named: "viper-module")
  }

  @Test func passesOnTheFixedTwinAndWithAnAcceptedCycle() throws {
    let fixed = try #require(Sample.named("viper-module-fixed")).make()
    assertNoCycles(fixed.root)
    let leaking = try #require(Sample.named("viper-module")).make()
    defer { leaking.breakCycles() }
    assertNoCycles(
      leaking.root, options: GraphOptions(ignoredReferences: [.property("output", of: "Interactor")]))
    assertGolden(try #require(checkNoCycles(leaking.root)).description, named: "verify-viper-module")
    #expect(checkNoCycles(fixed.root) == nil)
  }

  /// A loop among a library's objects alone, reachable from yours, is the library's: no failure.
  /// Here `Samples` stands for the library.
  @Test func passesOnALoopOfLibraryObjectsAlone() throws {
    let library = try #require(Sample.named("viper-module")).make()
    defer { library.breakCycles() }
    let app = LibraryUser(library: library.root)
    assertNoCycles(app, options: GraphOptions(libraryModules: ["Samples"]))
    #expect(checkNoCycles(app, options: GraphOptions(libraryModules: ["Samples"])) == nil)
    let graph = ObjectGraph(reflecting: app, options: GraphOptions(libraryModules: ["Samples"]))
    #expect(graph.cycles.map(\.isLibraryOnly) == [true])
    assertGolden(graph.report(), named: "library-only-loop")
    // The same objects as your own code: the cycle is yours to break.
    #expect(checkNoCycles(app, options: GraphOptions(libraryModules: [])) != nil)
  }

  @Test func closureCycleMessageNamesTheClosure() throws {
    let instance = try #require(Sample.named("lazy-closure")).make()
    defer { instance.breakCycles() }
    let seen = SeenIssues()
    withKnownIssue {
      assertNoCycles(instance.root, "person screen")
    } matching: { issue in
      seen.see(issue)
    }
    assertGolden(seen.text, named: "lazy-closure-with-context")
  }
}

final class AssertNoCyclesXCTests: FailureCapturingTestCase {
  func testFailureLandsAtTheCallersLine() throws {
    let instance = try XCTUnwrap(Sample.named("retain-cycle")).make()
    defer { instance.breakCycles() }
    let line = #line + 1
    let recorded = failures { assertNoCycles(instance.root) }
    XCTAssertEqual(recorded.count, 1)
    let issue = try XCTUnwrap(recorded.first)
    XCTAssertEqual(issue.line, line)
    XCTAssertTrue(issue.file.hasSuffix("RetainGraphTestingTests/AssertNoCyclesTests.swift"), issue.file)
    assertGolden(issue.description, named: "xctest-retain-cycle")
  }

  func testNoFailureWithoutCycles() throws {
    let instance = try XCTUnwrap(Sample.named("greeter")).make()
    XCTAssertTrue(failures { assertNoCycles(instance.root) }.isEmpty)
  }
}

/// An object of the test module holding a library's (`Samples`') object.
final class LibraryUser {
  let library: AnyObject
  init(library: AnyObject) { self.library = library }
}
