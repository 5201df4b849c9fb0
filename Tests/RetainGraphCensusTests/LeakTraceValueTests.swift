import Foundation
import RetainGraph
import Testing

@testable import RetainGraphCensus

/// Leak traces as values, for the tests that make reports by hand.
enum LeakTraceFixtures {
  /// `Sink ↓ owner → name`, fixed by weakening `Sink.owner`.
  static func section(_ name: String) -> LeakReport.TraceSection {
    LeakReport.TraceSection(fixes: [
      LeakReport.Fix(
        path: [
          TraceStep(holder: name, label: "sink", kind: .property, target: "Sink"),
          TraceStep(holder: "Sink", label: "owner", kind: .property, target: name),
        ],
        brokenStep: 1, idiom: .backReference, advice: "make Sink.owner weak",
        location: CodeLocation(file: "Sources/App/Sink.swift", line: 4, column: 3))
    ])
  }

  /// A closed session: its socket's closure captures it; two edits, the census chose the second.
  static var twoEditSection: LeakReport.TraceSection {
    LeakReport.TraceSection(fixes: [
      LeakReport.Fix(
        path: [
          TraceStep(holder: "FeedSession", label: "socket", kind: .property, target: "FeedSocket"),
          TraceStep(
            holder: "FeedSocket", label: "onText (closure) → capture 0", kind: .singleCapture,
            target: "FeedSession"),
        ],
        brokenStep: 1, idiom: .closureCapture,
        advice: "capture `[weak self]` in closure #1 in FeedSession.init() (stored in FeedSocket.onText)",
        location: CodeLocation(file: "Sources/App/FeedSession.swift", line: 12),
        alternative: LeakReport.Alternative(
          advice: "make FeedSession.socket weak",
          reference: TraceStep(holder: "FeedSession", label: "socket", kind: .property, target: "FeedSocket"),
          condition:
            "if the closure is the FeedSession's only owner while in use (then the first edit frees it "
            + "early) and something else owns the FeedSocket",
          breakFrees: "FeedSession",
          location: CodeLocation(file: "Sources/App/FeedSession.swift", line: 3, column: 7),
          decision: .secondEdit(live: 3, ownedOnlyByClosures: 2)))
    ])
  }

  static func leakedCycle(_ sections: [LeakReport.TraceSection]) -> LeakReport.LeakedCycle {
    LeakReport.LeakedCycle(
      signature: CycleSignature(text: "object FeedSession\nobject FeedSocket"),
      cycleTypes: ["FeedSession", "FeedSocket"], objectCount: 2, sections: sections, allocationSite: ["f()"],
      sequences: 3...9, madeBy: "test()", count: 2, totalObjectCount: 4, bytes: 128)
  }
}

extension CensusTests {
  /// A leaked cycle carries its trace and fixes as values; their text is made from them.
  @Suite struct LeakTraceValues {
    /// The trace and the fixes are rendered from the values: the loop, the marked reference, both
    /// edits with their places, the census's choice.
    @Test func theTextIsMadeFromTheValues() {
      var leak = LeakTraceFixtures.leakedCycle([LeakTraceFixtures.twoEditSection])
      #expect(
        leak.trace == """
          FeedSession
            ↓ socket
          FeedSocket
            ↓ onText (closure) → capture 0   ← break this
          FeedSession (loop closes)
          fix: capture `[weak self]` in closure #1 in FeedSession.init() (stored in FeedSocket.onText) — Sources/App/FeedSession.swift:12
            or make FeedSession.socket weak, if the closure is the FeedSession's only owner while in use (then the first edit frees it early) and something else owns the FeedSocket — Sources/App/FeedSession.swift:3
            the census sees 2 of 3 live FeedSession owned only by closures: make the second edit (the first would free them while in use)
          """)
      #expect(
        leak.fixes == [
          "make FeedSession.socket weak (2 of 3 live FeedSession owned only by closures: the closure's weak "
            + "capture would free them while in use)"
        ])
      // Changing a value changes the text.
      leak.sections[0].fixes[0].alternative?.decision = .firstEdit(live: 5)
      #expect(leak.fixes == [leak.sections[0].fixes[0].advice])
      #expect(
        leak.trace.hasSuffix(
          "  the census sees 5 live FeedSession, each with another owner: the first edit keeps them"))
      leak.sections[0].fixes[0].alternative?.decision = nil
      #expect(
        leak.fixes == [
          "capture `[weak self]` in closure #1 in FeedSession.init() (stored in FeedSocket.onText); or make "
            + "FeedSession.socket weak"
        ])
      leak.sections[0].fixes[0].brokenStep = 0
      leak.sections[0].fixes[0].location = nil
      #expect(leak.trace.contains("  ↓ socket   ← break this\n"))
      #expect(leak.trace.contains("(stored in FeedSocket.onText)\n"))
      // Two sections, a heading, two edits numbered, a library's loop.
      var second = LeakTraceFixtures.section("Subscription")
      second.heading = "cycle 2 of 2 (2 objects: Subscription, Sink):"
      second.editCount = 3
      second.cycleCount = 4
      second.libraryLoop = "left to OpenCombine: its own loops"
      let two = LeakTraceFixtures.leakedCycle([LeakTraceFixtures.section("Feed"), second])
      #expect(
        two.trace == """
          Feed
            ↓ sink
          Sink
            ↓ owner   ← break this
          Feed (loop closes)
          fix: make Sink.owner weak — Sources/App/Sink.swift:4

          cycle 2 of 2 (2 objects: Subscription, Sink):
          Subscription
            ↓ sink
          Sink
            ↓ owner   ← break this
          Subscription (loop closes)
          fix 1 of 3: make Sink.owner weak, one edit for all 4 cycles — Sources/App/Sink.swift:4

          left to OpenCombine: its own loops
          """)
      #expect(two.fixes == ["make Sink.owner weak", "make Sink.owner weak"])
    }

    /// A report with leaks reads back from its JSON equal, values and all, as does a dump holding it.
    @Test func aReportRoundTripsThroughJSON() throws {
      let report = LeakReport(
        leaks: [
          LeakTraceFixtures.leakedCycle([LeakTraceFixtures.twoEditSection, LeakTraceFixtures.section("Feed")]
          ),
          LeakTraceFixtures.leakedCycle([]),
        ],
        liveObjects: 10, leakedObjects: 8, unexplained: .init(references: 1, keptOut: ["Box × 1"]))
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      let read = try JSONDecoder().decode(LeakReport.self, from: encoder.encode(report))
      #expect(read == report)
      #expect(read.description == report.description)
      #expect(
        read.leaks[0].sections[0].fixes[0].alternative?.decision
          == .secondEdit(live: 3, ownedOnlyByClosures: 2))
      #expect(read.leaks[0].sections[0].fixes[0].reference?.kind == .singleCapture)
      #expect(
        read.leaks[0].sections[1].fixes[0].location
          == CodeLocation(file: "Sources/App/Sink.swift", line: 4, column: 3))
      // The forked child's byte form carries the same values.
      #expect(try LeakReportTransfer.decode(LeakReportTransfer.encode(report)) == report)
    }
  }
}

extension CensusTests {
  /// A retainer report's path and notes are values; its holder line and text are made from them.
  @Suite struct RetainerReportValues {
    static let report = RetainerReport(
      typeName: "Image",
      retainers: [
        .init(heldBy: .object(typeName: "ImageCache"), label: "images[0]", ownership: .strong, kind: .element)
      ],
      origin: .global("ImageCache.shared"),
      path: [TraceStep(holder: "ImageCache", label: "images[0]", kind: .element, target: "Image")],
      notes: [.wordInGlobal("counter (a Swift.Int)"), .walkCut])

    @Test func theHolderLineAndTheTextAreMadeFromTheValues() {
      var report = Self.report
      #expect(report.holderPath == "ImageCache.shared.images[0]")
      #expect(
        report.description == """
          Image is referenced by 1 holder:
            ImageCache.images[0]
          Shortest retainer path, from the global ImageCache.shared:
            ImageCache
              ↓ images[0]
            Image
          Note: counter (a Swift.Int) holds a word equal to its address (it may be a number, not a reference)
          Note: the census walk was cut short by its node limit
          """)
      report.path[0].label = "thumbnails[2]"
      report.origin = .unseenHolder
      #expect(report.holderPath == "ImageCache.thumbnails[2] (held by something the census cannot see)")
      report.origin = .ownCycle
      report.path.append(TraceStep(holder: "Image", label: "cache", target: "ImageCache"))
      #expect(
        report.holderPath == "ImageCache.thumbnails[2].cache (its own retain cycle, which nothing else holds)"
      )
      #expect(report.description.contains("    ↓ cache\n  ImageCache (loop closes)"))
    }

    @Test func aReportRoundTripsThroughJSON() throws {
      let read = try JSONDecoder().decode(RetainerReport.self, from: JSONEncoder().encode(Self.report))
      #expect(read == Self.report)
      #expect(read.path[0].kind == .element && read.notes[1] == .walkCut)
    }
  }
}

extension CensusTests {
  /// A dump holds values; its JSON reads back equal, with the text made from them beside them for
  /// the command line.
  @Suite struct CensusDumpValues {
    static let dump = CensusDump(
      time: "2026-12-07T18:00:00Z", pid: 42, number: 2, liveObjects: 10,
      counts: [TypeCount(typeName: "App.Image", count: 3)],
      leaks: LeakReport(
        leaks: [LeakTraceFixtures.leakedCycle([LeakTraceFixtures.twoEditSection])], liveObjects: 10,
        leakedObjects: 4, unexplained: .init()),
      growth: [
        CensusDump.Growth(typeName: "App.Image", before: 1, after: 3, retainers: RetainerReportValues.report),
        CensusDump.Growth(typeName: "App.Thumbnail", before: 0, after: 2, skipped: .timeBudget),
      ],
      notes: [.timeBudgetRanOut(searched: 1, notSearched: 1), .searchesFailed(reason: "the child crashed")])

    @Test func aDumpRoundTripsThroughJSON() throws {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      let data = try encoder.encode(Self.dump)
      let read = try JSONDecoder().decode(CensusDump.self, from: data)
      #expect(read == Self.dump)
      #expect(read.growth[0].holderPath == "ImageCache.shared.images[0]")
      #expect(read.growth[1].holderPath == nil)
      // The text beside the values, for readers that do not link the census.
      let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
      #expect(object["leaksText"] as? String == Self.dump.leaks.description)
      let growth = try #require(object["growth"] as? [[String: Any]])
      #expect(growth[0]["holderPath"] as? String == "ImageCache.shared.images[0]")
      #expect(
        Self.dump.notes.map(\.description) == [
          "the time budget ran out after 1 holder search: 1 type that grew has no holder (\"skipped\": \"time "
            + "budget\"); a larger HeapCensus.dumpTimeBudget searches more",
          "the holder searches failed: the child crashed",
        ])
    }

    /// A dump of version 1 held text: the library says so (the command line reads it).
    @Test func aDumpOfVersion1IsAnError() throws {
      let old = #"""
        {"format": "retain-graph-census-dump", "version": 1, "time": "t", "pid": 1, "number": 1,
         "liveObjects": 0, "counts": [], "leaks": {"leaks": [], "liveObjects": 0, "leakedObjects": 0,
         "unexplained": {"references": 0, "overcounted": 0, "objectsKeptOut": 0}}, "leaksText": "",
         "growth": [], "notes": []}
        """#
      #expect(throws: DecodingError.self) { try JSONDecoder().decode(CensusDump.self, from: Data(old.utf8)) }
    }
  }
}
