internal import RetainGraph
internal import RetainGraphStorage

/// The leak report's byte form from the forked child to its parent: integers little-endian and
/// strings as a `u32` byte count and UTF-8 (the forked walk's column codec), no JSON.
///
/// `RGLR`, version byte 1; live objects, leaked objects, unexplained references, overcounted
/// objects, objects kept out (`u64` each); the shape count (`u32`) and each shape: its signature's
/// text, cycle types (count and strings), object count, trace, fixes, a flag byte (bit 0: an
/// allocation site follows, bit 1: `madeBy` follows, bit 2: `isOfLibraryTypesOnly` is set, bit 3:
/// it is true), the site, `madeBy`, the allocation numbers (`u64` twice), count, total object count
/// and bytes (`u64` each).
enum LeakReportTransfer {
  static let magic: [UInt8] = Array("RGLR".utf8) + [1]

  static func encode(_ report: LeakReport) -> [UInt8] {
    var counter = ByteCounter()
    write(report, to: &counter)
    var bytes = [UInt8](repeating: 0, count: counter.count)
    bytes.withUnsafeMutableBytes { buffer in
      var writer = ColumnWriter(buffer)
      write(report, to: &writer)
      precondition(writer.offset == counter.count, "the leak report's size was miscounted")
    }
    return bytes
  }

  static func decode(_ bytes: [UInt8]) throws(ColumnReadError) -> LeakReport {
    try bytes.withUnsafeBytes { raw in
      Result { () throws(ColumnReadError) -> LeakReport in try read(raw) }
    }.get()
  }

  private static func read(_ raw: UnsafeRawBufferPointer) throws(ColumnReadError) -> LeakReport {
    var reader = ColumnReader(raw)
    try reader.expect(magic, "the leak report's header")
    func int(_ what: String) throws(ColumnReadError) -> Int {
      let value = try reader.u64(what)
      guard value <= UInt64(Int.max) else { throw reader.malformed("\(what) \(value) is too large") }
      return Int(value)
    }
    let live = try int("the live objects")
    let leaked = try int("the leaked objects")
    let unexplained = LeakReport.Unexplained(
      references: try int("the unexplained references"), overcounted: try int("the overcounted objects"),
      objectsKeptOut: try int("the objects kept out"), keptOut: try reader.strings("the types kept out"))
    let shapeCount = try reader.count("shapes", minimumSize: 8)
    var shapes: [LeakReport.LeakedCycle] = []
    for number in 0..<shapeCount {
      let what = "shape \(number + 1)"
      let signature = CycleSignature(text: try reader.string("\(what)'s signature"))
      let types = try reader.strings("\(what)'s types")
      let objects = try int("\(what)'s object count")
      let trace = try reader.string("\(what)'s trace")
      let fixes = try reader.strings("\(what)'s fixes")
      let flags = try reader.u8("\(what)'s flags")
      let site = flags & 1 != 0 ? try reader.strings("\(what)'s allocation site") : nil
      let madeBy = flags & 2 != 0 ? try reader.string("\(what)'s maker") : nil
      let libraryModules = flags & 16 != 0 ? try reader.strings("\(what)'s library modules") : nil
      let first = try reader.u64("\(what)'s first allocation number")
      let last = try reader.u64("\(what)'s last allocation number")
      guard first <= last else { throw reader.malformed("\(what)'s allocation numbers \(first) > \(last)") }
      shapes.append(
        LeakReport.LeakedCycle(
          signature: signature, cycleTypes: types, objectCount: objects, trace: trace, fixes: fixes,
          allocationSite: site, sequences: first...last, madeBy: madeBy,
          isOfLibraryTypesOnly: flags & 4 != 0 ? flags & 8 != 0 : nil, libraryModules: libraryModules,
          count: try int("\(what)'s count"),
          totalObjectCount: try int("\(what)'s total object count"), bytes: try int("\(what)'s bytes")))
    }
    guard reader.left == 0 else { throw reader.malformed("bytes after the last shape") }
    return LeakReport(leaks: shapes, liveObjects: live, leakedObjects: leaked, unexplained: unexplained)
  }

  private static func write(_ report: LeakReport, to sink: inout some ReportSink) {
    sink.append(magic)
    for value in [
      report.liveObjects, report.leakedObjects, report.unexplained.references, report.unexplained.overcounted,
      report.unexplained.objectsKeptOut,
    ] {
      sink.append(UInt64(value))
    }
    sink.append(strings: report.unexplained.keptOut)
    sink.append(UInt32(report.leaks.count))
    for shape in report.leaks {
      sink.append(string: shape.signature.text)
      sink.append(strings: shape.cycleTypes)
      sink.append(UInt64(shape.objectCount))
      sink.append(string: shape.trace)
      sink.append(strings: shape.fixes)
      var flags: UInt8 = shape.allocationSite == nil ? 0 : 1
      if shape.madeBy != nil { flags |= 2 }
      if let library = shape.isOfLibraryTypesOnly { flags |= library ? 12 : 4 }
      if shape.libraryModules != nil { flags |= 16 }
      sink.append(byte: flags)
      if let site = shape.allocationSite { sink.append(strings: site) }
      if let madeBy = shape.madeBy { sink.append(string: madeBy) }
      if let modules = shape.libraryModules { sink.append(strings: modules) }
      sink.append(shape.sequences.lowerBound)
      sink.append(shape.sequences.upperBound)
      for value in [shape.count, shape.totalObjectCount, shape.bytes] { sink.append(UInt64(value)) }
    }
  }
}

/// Where ``LeakReportTransfer`` writes: the column writer, or a counter of its bytes.
protocol ReportSink {
  mutating func append(byte: UInt8)
  mutating func append(_ raw: [UInt8])
  mutating func append(_ value: UInt32)
  mutating func append(_ value: UInt64)
  mutating func append(string: String)
  mutating func append(strings: [String])
}

extension ColumnWriter: ReportSink {}

/// Counts the bytes the column writer would write.
struct ByteCounter: ReportSink {
  var count = 0
  mutating func append(byte: UInt8) { count += 1 }
  mutating func append(_ raw: [UInt8]) { count += raw.count }
  mutating func append(_ value: UInt32) { count += 4 }
  mutating func append(_ value: UInt64) { count += 8 }
  mutating func append(string: String) { count += 4 + string.utf8.count }
  mutating func append(strings: [String]) {
    count += 4
    for string in strings { append(string: string) }
  }
}
