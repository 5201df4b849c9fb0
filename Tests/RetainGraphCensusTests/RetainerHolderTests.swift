import Foundation
import RetainGraph
import RetainGraphFormats
import RetainGraphTesting
import Testing

@testable import RetainGraphCensus

extension CensusTests {
  /// `RetainerReport.Retainer.heldBy` says what kind of thing holds the reference, as a value, and
  /// names it as the report's text does.
  @Suite(.heapCensus) struct RetainerHolders {
    /// An object's property, global storage, and a closure the walk could not reach: each holder is
    /// its kind of value, named as the report's text names it; the runtime agrees that each named
    /// holder was what held the object.
    @Test func eachHolderIsItsKindOfValue() throws {
      weak var image: CensusImage?
      do {
        CensusImageCache.shared.store(CensusImage(name: "held"))
        let held = try #require(CensusImageCache.shared.images.last)
        image = held
        let report = HeapCensus.retainers(of: held)
        let retainer = try #require(report.retainers.first, "\(report)")
        #expect(report.retainers.count == 1, "\(report)")
        #expect(retainer.heldBy == .object(typeName: "CensusImageCache"))
        #expect(retainer.label == "images[0]")
        #expect(retainer.heldBy.name == "CensusImageCache" && !retainer.heldBy.isGlobal)
        #expect(report.description.contains("\n  CensusImageCache.images[0]\n"), "\(report)")

        let cacheReport = HeapCensus.retainers(of: CensusImageCache.shared)
        let global = try #require(cacheReport.retainers.first { $0.heldBy.isGlobal }, "\(cacheReport)")
        #expect(global.heldBy == .global(name: "CensusImageCache.shared"))
        #expect(global.heldBy.name == "CensusImageCache.shared")
        #expect(cacheReport.description.contains("\n  CensusImageCache.shared (global)"), "\(cacheReport)")
      }
      CensusImageCache.shared.removeAll()
      #expect(image == nil, "the cache named as the holder was not what held the image")

      weak var listener: CensusSlotListener?
      let slot = CensusOpaqueSlot()
      do {
        let made = CensusSlotListener()
        made.listen(on: slot)
        listener = made
      }
      do {
        let report = HeapCensus.retainers(of: try #require(listener))
        let retainer = try #require(report.retainers.first, "\(report)")
        #expect(
          retainer.heldBy == .closure(name: "closure #1 in CensusSlotListener.listen(on:)"), "\(report)")
        #expect(retainer.heldBy.name == "closure #1 in CensusSlotListener.listen(on:)")
        #expect(retainer.heldBy.description == retainer.heldBy.name)
        // The picture draws each holder as what it is: the closure as a closure, from a holder the census
        // cannot see (a dashed box, its reference dashed), to the object (the picture's focus).
        let plan = report.drawingPlan
        #expect(plan.nodes.map(\.isFocus) == [true, false, false], "\(report.dot())")
        #expect(plan.nodes.map(\.kind) == [.object, .value, .closure], "\(report.dot())")
        #expect(plan.nodes[2].typeName == "closure #1 in CensusSlotListener.listen(on:)")
        #expect(plan.references.map { [$0.from, $0.to] } == [[1, 2], [2, 0]])
        #expect(plan.references.map(\.isConservative) == [true, false])
        #expect(
          report.dot().contains(
            #""n2" [label="closure #1 in\nCensusSlotListener.\nlisten(on:)", "#
              + #"tooltip="closure #1 in CensusSlotListener.listen(on:)", shape=ellipse"#),
          "\(report.dot())")
      }
      slot.drop()
      #expect(listener == nil, "the closure named as the holder was not what held the listener")
    }

    /// Retainers as the encoder wrote them before `holderKind` (no such key) still decode, each to
    /// its kind; what the encoder writes now keeps every key a reader before it needs, with the
    /// same values, and reads back equal.
    @Test func theJSONFormReadsBothWays() throws {
      let before: [(json: String, heldBy: RetainerReport.Holder, kind: Edge.Kind?)] = [
        (
          #"{"holder":"CensusImageCache","label":"images[0]","ownership":"strong","isGlobal":false,"#
            + #""isWordOnly":false,"isClosureContext":false,"kind":"element"}"#,
          .object(typeName: "CensusImageCache"), .element
        ),
        (
          #"{"holder":"CensusImageCache.shared","label":"","ownership":"strong","isGlobal":true,"#
            + #""isWordOnly":false,"isClosureContext":false,"kind":"global"}"#,
          .global(name: "CensusImageCache.shared"), .global
        ),
        (
          #"{"holder":"closure #1 in f()","label":"capture","ownership":"strong","isGlobal":false,"#
            + #""isWordOnly":false,"isClosureContext":true}"#,
          .closure(name: "closure #1 in f()"), nil
        ),
        // Older still: no isWordOnly or isClosureContext, the kind nested as synthesised coding wrote it.
        (
          #"{"holder":"Feed","label":"onEnd","ownership":"weak","isGlobal":false,"kind":{"property":{}}}"#,
          .object(typeName: "Feed"), .property
        ),
      ]
      for entry in before {
        let retainer = try JSONDecoder().decode(RetainerReport.Retainer.self, from: Data(entry.json.utf8))
        #expect(retainer.heldBy == entry.heldBy, "\(entry.json)")
        #expect(retainer.kind == entry.kind, "\(entry.json)")

        let written = try JSONEncoder().encode(retainer)
        #expect(try JSONDecoder().decode(RetainerReport.Retainer.self, from: written) == retainer)
        let fields = try #require(try JSONSerialization.jsonObject(with: written) as? [String: Any])
        #expect(fields["holder"] as? String == entry.heldBy.name)
        #expect(fields["isGlobal"] as? Bool == entry.heldBy.isGlobal)
        #expect(fields["isClosureContext"] as? Bool == retainer.isClosureContext)
        #expect(fields["label"] as? String == retainer.label)
        #expect(fields["ownership"] as? String == retainer.ownership.rawValue)
      }

      // A task's holder, which no flag before `holderKind` told apart, round-trips by it.
      let task = RetainerReport.Retainer(
        heldBy: .runtimeHolder(name: "running task started in f() (closure #1 in f())"), label: "capture 1",
        ownership: .strong, kind: .capture(index: 1), isClosureContext: true)
      let written = try JSONEncoder().encode(task)
      #expect(try JSONDecoder().decode(RetainerReport.Retainer.self, from: written) == task)
      #expect(String(decoding: written, as: UTF8.self).contains(#""holderKind":"runtimeHolder""#))

      let unknown = #"{"holder":"X","holderKind":"teapot","label":"","ownership":"strong","isGlobal":false}"#
      #expect(throws: DecodingError.self) {
        try JSONDecoder().decode(RetainerReport.Retainer.self, from: Data(unknown.utf8))
      }
    }
  }
}
