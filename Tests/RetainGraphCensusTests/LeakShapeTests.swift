import Foundation
import RetainGraph
import RetainGraphStorage
import RetainGraphTestSupport
import RetainGraphTesting
import Testing

@testable import RetainGraphCensus

/// A node that can make a pair through either of two references of the same type.
final class ShapeNode: @unchecked Sendable {
  var left: ShapeNode?
  var right: ShapeNode?
}

/// `count` pairs of `ShapeNode` that hold each other through `left` (or `right`), with weak probes
/// to every object.
func makeShapePairs(_ count: Int, throughLeft: Bool) -> [WeakShapeNode] {
  var probes: [WeakShapeNode] = []
  for _ in 0..<count {
    let first = ShapeNode()
    let second = ShapeNode()
    if throughLeft {
      first.left = second
      second.left = first
    } else {
      first.right = second
      second.right = first
    }
    probes.append(WeakShapeNode(first))
    probes.append(WeakShapeNode(second))
  }
  return probes
}

struct WeakShapeNode {
  weak var node: ShapeNode?
  init(_ node: ShapeNode) { self.node = node }
}

/// Breaks the pairs behind `probes`, so that the test leaves no garbage.
func breakShapePairs(_ probes: [WeakShapeNode]) {
  for probe in probes {
    probe.node?.left = nil
    probe.node?.right = nil
  }
}

extension CensusTests {
  /// Leaks grouped by shape (issue 39, item 2): a leak repeated is one shape with its count, its
  /// objects, bytes and allocation numbers; the trace is its oldest instance's.
  @Suite(.heapCensus) struct LeakShapes {
    /// The shapes of `report` among `ShapeNode` objects (other tests leave garbage too).
    static func shapes(_ report: LeakReport) -> [LeakReport.LeakedCycle] {
      report.leaks(involving: "ShapeNode")
    }

    @Test func aLeakRepeatedIsOneShapeWithItsCount() throws {
      let start = HeapCensus.mark()
      let lefts = makeShapePairs(40, throughLeft: true)
      let middle = HeapCensus.mark()
      let rights = makeShapePairs(7, throughLeft: false)
      let end = HeapCensus.mark()
      defer {
        breakShapePairs(lefts)
        breakShapePairs(rights)
      }
      let report = try HeapCensus.leaks(since: start)
      // The runtime keeps every planted object alive: nothing can free them.
      #expect((lefts + rights).allSatisfy { $0.node != nil })
      let found = Self.shapes(report)
      try #require(found.count == 2, "\(report)")
      // The larger shape first.
      #expect(found.map(\.count) == [40, 7])
      #expect(found.map(\.totalObjectCount) == [80, 14])
      #expect(found.map(\.objectCount) == [2, 2])
      // A ShapeNode is 32 bytes: the header and two references.
      #expect(found.map(\.bytes) == [80 * 32, 14 * 32])
      #expect(
        found[0].sequences.lowerBound >= start.sequence && found[0].sequences.upperBound < middle.sequence)
      #expect(
        found[1].sequences.lowerBound >= middle.sequence && found[1].sequences.upperBound < end.sequence)
      // At least as many allocation numbers as objects (other threads allocate between them).
      #expect(found[0].sequences.count >= 80 && found[1].sequences.count >= 14)
      #expect(found[0].signature != found[1].signature)
      #expect(found[0].fixes.count == 1 && found[0].fixes[0].contains("ShapeNode.left"), "\(found[0].fixes)")
      #expect(found[1].fixes.count == 1 && found[1].fixes[0].contains("ShapeNode.right"), "\(found[1].fixes)")
      // The whole text, with the counts of this process (and the allocation numbers, which other
      // tests' allocations move) replaced by fixed ones.
      let fixedNumbers: [ClosedRange<UInt64>] = [1_000...1_079, 2_000...2_013]
      let shown = LeakReport(
        leaks: zip(found, fixedNumbers).map { shape, numbers in
          var shape = shape
          shape.sequences = numbers
          return shape
        },
        liveObjects: 12_345, leakedObjects: 94, unexplained: .init())
      assertGolden(shown.description, named: "two-shapes")
    }

    /// Shapes whose references sit in holders too large to key by place share a key: the walk of
    /// the newest instance tells them apart, and every instance is walked then.
    @Test func shapesThatShareAKeyAreToldApartByTheirWalks() throws {
      let start = HeapCensus.mark()
      let lefts = makeShapePairs(5, throughLeft: true)
      let rights = makeShapePairs(3, throughLeft: false)
      defer {
        breakShapePairs(lefts)
        breakShapePairs(rights)
      }
      let report = try HeapCensus.leaks(since: start, scopes: nil, timeout: .seconds(60), placedHolderSize: 0)
      #expect((lefts + rights).allSatisfy { $0.node != nil })
      let found = Self.shapes(report)
      #expect(found.map(\.count) == [5, 3], "\(report)")
      #expect(found.map(\.totalObjectCount) == [10, 6])
      #expect(Set(found.map(\.signature)).count == 2)
    }

    /// A dump written before shapes were counted reads as one cycle per entry; a shape's JSON
    /// round-trips.
    @Test func aLeakedCycleWithoutItsCountReadsAsOne() throws {
      let old = #"""
        {"signature": {"text": "object A"}, "cycleTypes": ["A"], "objectCount": 3, "sections": [],
         "sequences": [4, 9]}
        """#
      let read = try JSONDecoder().decode(LeakReport.LeakedCycle.self, from: Data(old.utf8))
      #expect(read.count == 1 && read.totalObjectCount == 3 && read.bytes == 0 && read.sequences == 4...9)
      var shape = read
      shape.count = 12
      shape.totalObjectCount = 36
      shape.bytes = 1_152
      let again = try JSONDecoder().decode(LeakReport.LeakedCycle.self, from: JSONEncoder().encode(shape))
      #expect(again == shape)
    }

    /// The report's byte form from the forked child reads back to the same report, and a cut or
    /// altered form is an error naming what is wrong.
    @Test func theTransferReadsBackWhatWasWritten() throws {
      let report = LeakReport(
        leaks: [
          LeakReport.LeakedCycle(
            signature: CycleSignature(text: "object A\nobject B"), cycleTypes: ["A", "B"], objectCount: 2,
            sections: [LeakTraceFixtures.twoEditSection], allocationSite: ["f()", "g()"],
            sequences: 3...900,
            madeBy: "test()", isOfLibraryTypesOnly: false, count: 400, totalObjectCount: 801, bytes: 25_632),
          LeakReport.LeakedCycle(
            signature: CycleSignature(text: "object C"), cycleTypes: ["C"], objectCount: 1,
            sections: [
              LeakReport.TraceSection(heading: "cycle 1 of 2 (1 object: C):", fixes: [], libraryLoop: "left")
            ],
            allocationSite: nil, sequences: 7...7, isOfLibraryTypesOnly: true, libraryModules: ["NIOCore"]),
          LeakReport.LeakedCycle(
            signature: CycleSignature(text: "é"), cycleTypes: [], objectCount: 3, sections: [],
            allocationSite: [], sequences: 0...UInt64.max),
        ],
        liveObjects: 1_000_000, leakedObjects: 805,
        unexplained: .init(references: 2, overcounted: 1, objectsKeptOut: 3, keptOut: ["Box × 3"]))
      let bytes = LeakReportTransfer.encode(report)
      #expect(try LeakReportTransfer.decode(bytes) == report)
      func failure(_ bytes: [UInt8]) -> String? {
        do {
          _ = try LeakReportTransfer.decode(bytes)
          return nil
        } catch {
          return error.message
        }
      }
      let cut = Array(bytes.dropLast(3))
      #expect(
        failure(cut) == "the stream ends inside shape 3's bytes (at byte \(cut.count - 5) of \(cut.count))")
      #expect(failure([]) == "the leak report's header is missing (at byte 0 of 0)")
      #expect(
        failure(bytes + [0]) == "bytes after the last shape (at byte \(bytes.count) of \(bytes.count + 1))")
    }
  }
}

extension CensusTests {
  /// A report at exit longer than a screen is summarised, the whole of it written to a file.
  @Suite struct LeakSummary {
    /// 25 shapes of the program's and two of libraries': the summary lists the 20 largest, counts
    /// the rest and the libraries' in a line each, and names the file.
    private func report() -> LeakReport {
      var leaks: [LeakReport.LeakedCycle] = []
      for number in 0..<25 {
        let name = "Subscription\(number)"
        leaks.append(
          LeakReport.LeakedCycle(
            signature: CycleSignature(text: "object \(name)"), cycleTypes: [name, "Sink"], objectCount: 2,
            sections: [LeakTraceFixtures.section(name)], allocationSite: ["App.make()"],
            sequences: UInt64(number)...UInt64(number + 100),
            madeBy: "AppTests.test\(number)()", isOfLibraryTypesOnly: false, count: 100 - number,
            totalObjectCount: 2 * (100 - number), bytes: 64 * (100 - number)))
      }
      leaks.append(
        LeakReport.LeakedCycle(
          signature: CycleSignature(text: "object XCTestCaseRun"), cycleTypes: ["AppTests", "XCTestCaseRun"],
          objectCount: 4, sections: [], allocationSite: nil, sequences: 1...900,
          isOfLibraryTypesOnly: false, libraryModules: ["XCTest"], count: 156))
      leaks.append(
        LeakReport.LeakedCycle(
          signature: CycleSignature(text: "object EmbeddedChannel"), cycleTypes: ["EmbeddedChannel"],
          objectCount: 9, sections: [], allocationSite: nil, sequences: 2...800,
          madeBy: "AppTesting.Client.execute()", isOfLibraryTypesOnly: false,
          libraryModules: ["NIOCore", "NIOEmbedded"], count: 1_300))
      return LeakReport(leaks: leaks, liveObjects: 22_650, leakedObjects: 17_000, unexplained: .init())
    }

    @Test func aLongReportIsSummarisedOnOneScreen() throws {
      let report = report()
      let (text, cycles) = RetainGraphCensus.LeaksAtExit.report(of: report, knownFile: nil)
      #expect(cycles == 2_200)
      // A dependency's loop says which code of the package made it; XCTest's does not.
      #expect(
        text.contains(
          "EmbeddedChannel (9 objects) × 1,300: references of SwiftNIO (NIOCore, NIOEmbedded), made by "
            + "AppTesting.Client.execute()"), "\(text)")
      #expect(text.contains("XCTestCaseRun (4 objects) × 156: references of the test libraries (XCTest)\n"))
      let (printed, toFile) = RetainGraphCensus.LeaksAtExit.printed(
        text, of: report, cycles: cycles, file: "/work/App/.build/retain-graph-leaks-42.txt",
        pass: "the XCTest pass")
      #expect(toFile)
      let lines = printed.split(separator: "\n")
      #expect(lines.count <= RetainGraphCensus.LeaksAtExit.screenLines)
      #expect(lines.allSatisfy { $0.count <= RetainGraphCensus.LeaksAtExit.summaryWidth })
      assertGolden(printed, named: "summary-at-exit")
      // A report that fits is printed whole, and no file is written.
      var short = report
      short.leaks = Array(report.leaks.prefix(2))
      let (shortText, _) = RetainGraphCensus.LeaksAtExit.report(of: short, knownFile: nil)
      let shown = RetainGraphCensus.LeaksAtExit.printed(
        shortText, of: short, cycles: nil, file: "unused", pass: "the XCTest pass")
      #expect(shown.printed == shortText && !shown.toFile)
    }

    /// The libraries' cycles are listed a line each in the whole report; a screen's worth or more
    /// makes it a summary, where they are one line.
    @Test func librariesCyclesAreOneLineInTheSummary() {
      let leaks = (0..<40).map { number in
        LeakReport.LeakedCycle(
          signature: CycleSignature(text: "object Case\(number)"),
          cycleTypes: ["Case\(number)", "XCTestCaseRun"],
          objectCount: 4, sections: [], allocationSite: nil, sequences: 1...2,
          isOfLibraryTypesOnly: false, libraryModules: ["XCTest"], count: 10)
      }
      let report = LeakReport(leaks: leaks, liveObjects: 2_000, leakedObjects: 1_600, unexplained: .init())
      let (text, cycles) = RetainGraphCensus.LeaksAtExit.report(of: report, knownFile: nil)
      #expect(cycles == 0)
      #expect(text.split(separator: "\n").count == 42, "every shape has its line")
      let (printed, toFile) = RetainGraphCensus.LeaksAtExit.printed(
        text, of: report, cycles: cycles, file: "/work/App/.build/retain-graph-leaks-42.txt",
        pass: "the XCTest pass")
      #expect(toFile)
      assertGolden(printed, named: "libraries-at-exit")
    }

    /// Every pass appends its whole report to the run's one file, under a heading of its own.
    @Test func passesAppendTheirWholeReportsToOneFile() throws {
      let file = FileManager.default.temporaryDirectory.appendingPathComponent("leaks-\(UUID()).txt").path
      defer { try? FileManager.default.removeItem(atPath: file) }
      #expect(RetainGraphCensus.LeaksAtExit.append("first report", to: file))
      #expect(RetainGraphCensus.LeaksAtExit.append("second report", to: file))
      let written = try String(contentsOfFile: file, encoding: .utf8)
      let pass = RetainGraphCensus.LeaksAtExit.passName
      let heading = "== RETAIN_GRAPH_LEAKS at the exit of \(pass) (process \(getpid()))"
      #expect(written == "\(heading)\nfirst report\n\n\(heading)\nsecond report\n\n")
      #expect(!RetainGraphCensus.LeaksAtExit.append("lost", to: "/nonexistent-folder/leaks.txt"))
    }
  }
}
