import RetainGraphTestSupport
import Testing

@testable import RetainGraph

// Identical fixes are said once (issue 29.4): cycles whose fix plans say the same edits (three
// rooms, each holding a closure that captures the room) are one group in the report, the first
// shown, the summary counting one edit for them all; a different cycle between them keeps its own.

private final class Room {
  var onChange: (() -> Void)?
  var count = 0

  func bind() {
    onChange = { self.count += 1 }
  }
}

private final class Desk {
  var lamp: Lamp?
}

private final class Lamp {
  var desk: Desk?
}

private final class Hotel {
  var first: Room?
  var desk: Desk?
  var others: [Room] = []
}

private struct Probe {
  weak var room: Room?
  init(_ room: Room) { self.room = room }
}

@Suite struct AlikeCyclesTests {
  // Needs the binary readers: it checks names read from the symbol tables (BinaryReadersTests
  // checks the names without them).
  #if BinaryReaders
    @Test func alikeCyclesAreSaidOnceAndTheRuntimeKeepsEveryOne() {
      var probes: [Probe] = []
      weak var desk: Desk?
      let graph: ObjectGraph = {
        let hotel = Hotel()
        let rooms = (0..<3).map { _ in Room() }
        for room in rooms { room.bind() }
        hotel.first = rooms[0]
        hotel.desk = Desk()
        hotel.desk?.lamp = Lamp()
        hotel.desk?.lamp?.desk = hotel.desk
        hotel.others = Array(rooms[1...])
        probes = rooms.map(Probe.init)
        desk = hotel.desk
        return ObjectGraph(reflecting: hotel)
      }()
      // The runtime keeps every cycle the report groups.
      #expect(probes.allSatisfy { $0.room != nil } && desk != nil)
      #expect(graph.cycles.count == 4)
      let report = graph.report()
      assertGolden(report, named: "three-rooms-and-a-desk.report")
      // Three room cycles are one group: said once, one edit; the desk's cycle is its own.
      #expect(report.split(separator: "\n").filter { $0.hasPrefix("fix: ") }.count == 2)
      #expect(
        report.hasPrefix("4 retain cycles reachable from Hotel (5 objects); 2 fixes (4 references) to weaken")
      )
      for probe in probes { probe.room?.onChange = nil }
      desk?.lamp = nil
      #expect(probes.allSatisfy { $0.room == nil } && desk == nil, "each cycle broken by its fix")
    }
  #endif

  @Test func cycleNumbersAreRunsAndLists() {
    #expect(ReportWriter.numbers([0, 1, 2, 3]) == "1–4")
    #expect(ReportWriter.numbers([0, 2, 4]) == "1, 3 and 5")
    #expect(ReportWriter.numbers([0, 1, 3, 4, 5, 9]) == "1, 2, 4–6 and 10")
    #expect(ReportWriter.numbers([6]) == "7")
  }
}
