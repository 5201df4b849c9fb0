internal import RetainGraph
internal import RetainGraphStorage

/// The leak report's byte form from the forked child to its parent: integers little-endian and
/// strings as a `u32` byte count and UTF-8 (the forked walk's column codec), no JSON.
///
/// `RGLR`, version byte 2; live objects, leaked objects, unexplained references, overcounted
/// objects, objects kept out (`u64` each); the shape count (`u32`) and each shape: its signature's
/// text, cycle types (count and strings), object count, its trace sections (as below), a flag byte
/// (bit 0: an
/// allocation site follows, bit 1: `madeBy` follows, bit 2: `isOfLibraryTypesOnly` is set, bit 3:
/// it is true), the site, `madeBy`, the allocation numbers (`u64` twice), count, total object count
/// and bytes (`u64` each).
enum LeakReportTransfer {
  static let magic: [UInt8] = Array("RGLR".utf8) + [2]

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
      let sections = try readSections(&reader, what)
      let flags = try reader.u8("\(what)'s flags")
      let site = flags & 1 != 0 ? try reader.strings("\(what)'s allocation site") : nil
      let madeBy = flags & 2 != 0 ? try reader.string("\(what)'s maker") : nil
      let libraryModules = flags & 16 != 0 ? try reader.strings("\(what)'s library modules") : nil
      let first = try reader.u64("\(what)'s first allocation number")
      let last = try reader.u64("\(what)'s last allocation number")
      guard first <= last else { throw reader.malformed("\(what)'s allocation numbers \(first) > \(last)") }
      shapes.append(
        LeakReport.LeakedCycle(
          signature: signature, cycleTypes: types, objectCount: objects, sections: sections,
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
      sink.append(UInt32(shape.sections.count))
      for section in shape.sections { write(section, to: &sink) }
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

// A shape's trace sections: each a flag byte (bit 0: a heading follows, bit 1: a library loop line
// follows), the heading, the cycle and edit counts (`u64`), the fixes (a `u32` count), the library
// loop line. A fix: its path's steps (a `u32` count), a flag byte (bit 0: a broken step's index
// follows, bit 1: reachable, bit 2: a location follows, bit 3: an alternative follows), the idiom and
// the advice (strings), the index (`u64`), the location, the alternative. A step: holder, holder's
// kind, label, a kind byte (255: none; else the graph transfer's code, with a capture's index as `u64`
// or a method reference's method after it), ownership, target, target's kind (strings but the kind).
// A location: file, line (`u64`), a column byte (1: a `u64` column follows). An alternative: advice,
// its step, condition, frees, a flag byte (bit 0: a location follows, bit 1: a decision follows),
// the location, the decision (a byte, 0 first edit or 1 second, then `u64` live and, for the
// second, `u64` owned only by closures).
extension LeakReportTransfer {
  fileprivate static func write(_ section: LeakReport.TraceSection, to sink: inout some ReportSink) {
    sink.append(byte: (section.heading == nil ? 0 : 1) | (section.libraryLoop == nil ? 0 : 2))
    if let heading = section.heading { sink.append(string: heading) }
    sink.append(UInt64(section.cycleCount))
    sink.append(UInt64(section.editCount))
    sink.append(UInt32(section.fixes.count))
    for fix in section.fixes {
      sink.append(UInt32(fix.path.count))
      for step in fix.path { write(step, to: &sink) }
      var flags: UInt8 = fix.brokenStep == nil ? 0 : 1
      if fix.isReachable { flags |= 2 }
      if fix.location != nil { flags |= 4 }
      if fix.alternative != nil { flags |= 8 }
      sink.append(byte: flags)
      sink.append(string: fix.idiom.rawValue)
      sink.append(string: fix.advice)
      if let broken = fix.brokenStep { sink.append(UInt64(broken)) }
      if let location = fix.location { write(location, to: &sink) }
      if let alternative = fix.alternative {
        sink.append(string: alternative.advice)
        write(alternative.reference, to: &sink)
        sink.append(string: alternative.condition)
        sink.append(string: alternative.breakFrees)
        sink.append(byte: (alternative.location == nil ? 0 : 1) | (alternative.decision == nil ? 0 : 2))
        if let location = alternative.location { write(location, to: &sink) }
        switch alternative.decision {
        case nil: break
        case .firstEdit(let live):
          sink.append(byte: 0)
          sink.append(UInt64(live))
        case .secondEdit(let live, let only):
          sink.append(byte: 1)
          sink.append(UInt64(live))
          sink.append(UInt64(only))
        }
      }
    }
    if let libraryLoop = section.libraryLoop { sink.append(string: libraryLoop) }
  }

  fileprivate static func write(_ step: TraceStep, to sink: inout some ReportSink) {
    sink.append(string: step.holder)
    sink.append(string: step.holderKind.rawValue)
    sink.append(string: step.label)
    if let kind = step.kind {
      sink.append(byte: kind.transferCode)
      if let index = kind.captureIndex { sink.append(UInt64(index)) }
      if case .methodReference(let method) = kind { sink.append(string: method) }
    } else {
      sink.append(byte: 255)
    }
    sink.append(string: step.ownership.rawValue)
    sink.append(string: step.target)
    sink.append(string: step.targetKind.rawValue)
  }

  fileprivate static func write(_ location: CodeLocation, to sink: inout some ReportSink) {
    sink.append(string: location.file)
    sink.append(UInt64(location.line))
    if let column = location.column {
      sink.append(byte: 1)
      sink.append(UInt64(column))
    } else {
      sink.append(byte: 0)
    }
  }

  fileprivate static func readSections(_ reader: inout ColumnReader, _ shape: String) throws(ColumnReadError)
    -> [LeakReport.TraceSection]
  {
    func int(_ what: String) throws(ColumnReadError) -> Int {
      let value = try reader.u64(what)
      guard value <= UInt64(Int.max) else { throw reader.malformed("\(what) \(value) is too large") }
      return Int(value)
    }
    func location(_ what: String) throws(ColumnReadError) -> CodeLocation {
      let file = try reader.string("\(what)'s file")
      let line = try int("\(what)'s line")
      let column = try reader.u8("\(what)'s column flag") != 0 ? try int("\(what)'s column") : nil
      return CodeLocation(file: file, line: line, column: column)
    }
    func raw<Value: RawRepresentable<String>>(_ type: Value.Type, _ what: String) throws(ColumnReadError)
      -> Value
    {
      let text = try reader.string(what)
      guard let value = Value(rawValue: text) else {
        throw reader.malformed("\(what) \"\(text)\" is unknown")
      }
      return value
    }
    func step(_ what: String) throws(ColumnReadError) -> TraceStep {
      let holder = try reader.string("\(what)'s holder")
      let holderKind = try raw(Node.Kind.self, "\(what)'s holder kind")
      let label = try reader.string("\(what)'s label")
      let code = try reader.u8("\(what)'s kind")
      let kind: Edge.Kind?
      switch code {
      case 255: kind = nil
      case 5: kind = .methodReference(method: try reader.string("\(what)'s method"))
      case 6: kind = .capture(index: try int("\(what)'s capture"))
      case 9: kind = .actorIsolation(index: try int("\(what)'s capture"))
      default:
        guard let simple = Edge.Kind(transferCode: code) else {
          throw reader.malformed("\(what)'s kind \(code)")
        }
        kind = simple
      }
      return TraceStep(
        holder: holder, holderKind: holderKind, label: label, kind: kind,
        ownership: try raw(Ownership.self, "\(what)'s ownership"),
        target: try reader.string("\(what)'s target"),
        targetKind: try raw(Node.Kind.self, "\(what)'s target kind"))
    }
    var sections: [LeakReport.TraceSection] = []
    for number in 0..<(try reader.count("\(shape)'s sections", minimumSize: 21)) {
      let what = "\(shape)'s section \(number + 1)"
      let flags = try reader.u8("\(what)'s flags")
      let heading = flags & 1 != 0 ? try reader.string("\(what)'s heading") : nil
      let cycleCount = try int("\(what)'s cycle count")
      let editCount = try int("\(what)'s edit count")
      var fixes: [LeakReport.Fix] = []
      for fixNumber in 0..<(try reader.count("\(what)'s fixes", minimumSize: 13)) {
        let what = "\(what)'s fix \(fixNumber + 1)"
        var path: [TraceStep] = []
        for stepNumber in 0..<(try reader.count("\(what)'s path", minimumSize: 25)) {
          path.append(try step("\(what)'s step \(stepNumber + 1)"))
        }
        let fixFlags = try reader.u8("\(what)'s flags")
        let idiom = try raw(Cycle.Break.Idiom.self, "\(what)'s idiom")
        let advice = try reader.string("\(what)'s advice")
        let broken = fixFlags & 1 != 0 ? try int("\(what)'s broken step") : nil
        if let broken, broken >= path.count { throw reader.malformed("\(what)'s broken step \(broken)") }
        let fixLocation = fixFlags & 4 != 0 ? try location("\(what)'s location") : nil
        var alternative: LeakReport.Alternative?
        if fixFlags & 8 != 0 {
          let advice = try reader.string("\(what)'s other edit")
          let reference = try step("\(what)'s other edit's reference")
          let condition = try reader.string("\(what)'s other edit's condition")
          let frees = try reader.string("\(what)'s other edit's freed type")
          let otherFlags = try reader.u8("\(what)'s other edit's flags")
          let otherLocation = otherFlags & 1 != 0 ? try location("\(what)'s other edit's location") : nil
          var decision: LeakReport.Decision?
          if otherFlags & 2 != 0 {
            let choice = try reader.u8("\(what)'s decision")
            let live = try int("\(what)'s live instances")
            switch choice {
            case 0: decision = .firstEdit(live: live)
            case 1:
              decision = .secondEdit(
                live: live, ownedOnlyByClosures: try int("\(what)'s instances owned by closures"))
            default: throw reader.malformed("\(what)'s decision \(choice)")
            }
          }
          alternative = LeakReport.Alternative(
            advice: advice, reference: reference, condition: condition, breakFrees: frees,
            location: otherLocation,
            decision: decision)
        }
        fixes.append(
          LeakReport.Fix(
            path: path, brokenStep: broken, isReachable: fixFlags & 2 != 0, idiom: idiom, advice: advice,
            location: fixLocation, alternative: alternative))
      }
      let libraryLoop = flags & 2 != 0 ? try reader.string("\(what)'s library loop") : nil
      sections.append(
        LeakReport.TraceSection(
          heading: heading, cycleCount: cycleCount, editCount: editCount, fixes: fixes,
          libraryLoop: libraryLoop))
    }
    return sections
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
