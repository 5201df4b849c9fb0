public import RetainGraph

/// Every leaked cycle the census found with no root given, from ``HeapCensus/leaks(since:timeout:)``:
/// groups of recorded objects that only each other hold.
///
/// For every recorded object, the strong references other recorded objects hold to it (read by
/// type, as the walk reads them, each counted on the heap object that holds it: an array's buffer,
/// a dictionary's storage, a closure's context) are subtracted from its strong count, as the
/// runtime keeps it. An object whose count stays above zero is held from outside (a global, a
/// stack, a task, a queued block, `Unmanaged`, C storage): it and all it strongly reaches are
/// alive. The rest is garbage: leaked cycles, and what only they keep alive. A reference the
/// count cannot attribute exactly is never subtracted, so that what it cannot explain counts as
/// alive; ``unexplained`` says what that was and how many objects it kept out.
///
/// Leaked cycles of one signature are one shape (``LeakedCycle``, with its ``LeakedCycle/count``),
/// shown by its oldest instance, so that a leak repeated 100,000 times is one section; shapes come
/// most numerous first.
///
/// Its `description` is the text, one leak trace and fix per shape, as `ObjectGraph.report()`
/// writes them:
/// ```
/// 1 leaked cycle (2 objects) among 5,120 live objects the census recorded
///
/// leaked cycle 1 of 1: 2 objects (Child, Parent), signature 8c1f0d2a9b3e4f57
/// Parent
///   ↓ child
/// Child
///   ↓ parent   ← break this
/// Parent (loop closes)
/// fix: make Child.parent weak
/// ```
public struct LeakReport: CustomStringConvertible, Sendable, Hashable, Codable {
  /// One shape of leaked cycle: a group of objects that only each other (and nothing outside)
  /// hold, with how many such groups of the same signature were found (``count``). The trace, the
  /// fixes and the names are those of the oldest instance.
  public struct LeakedCycle: Sendable, Hashable, Codable {
    /// What identifies the cycle from run to run: its types and references, not addresses.
    public var signature: LeakSignature
    /// The short type names of the objects on the cycle (closures by their function), sorted.
    public var cycleTypes: [String]
    /// How many heap objects the oldest instance holds, itself included: its members and what only
    /// it keeps alive, an array's buffer or a dictionary's storage counted as an object of its own.
    public var objectCount: Int
    /// The leak trace as values: each group of alike cycles of the graph of the cycle's group (walked
    /// from ``cycleTypes``' oldest object), with its fix plan, each fix with its trace, its edit,
    /// where to make it and the census's choice between two edits.
    public var sections: [TraceSection]
    /// The leak trace and fix lines, made from ``sections`` as `ObjectGraph.report()` writes them
    /// for the graph of the group.
    public var trace: String {
      sections.map { $0.lines.joined(separator: "\n") }.joined(separator: "\n\n")
    }
    /// Each fix of the trace, as a sentence (``Fix/description``): a break with another edit
    /// (`Cycle.Break.alternative`) as both, `…; or make FeedSession.socket weak`, unless the
    /// census chose one. Alike cycles share their fixes: they are listed once.
    public var fixes: [String] { sections.flatMap { $0.fixes.map(\.description) } }
    /// Where the oldest object of the cycle was allocated (function names, innermost first), when
    /// the census recorded call stacks.
    public var allocationSite: [String]?
    /// The census's allocation numbers of the oldest object of the oldest instance and of the newest
    /// object of the newest instance (see ``HeapCensus/Mark``).
    public var sequences: ClosedRange<UInt64>
    /// The function that allocated the cycle's oldest class instance, as `RETAIN_GRAPH_LEAKS=1`
    /// names it from the allocation's call stack (the test, in a test run: the outermost frame of
    /// the program's own code around the allocation, generated thunks left out); nil otherwise.
    public var madeBy: String? = nil
    /// Whether every class on the cycle is defined outside the program, in a library loaded beside
    /// it (XCTest's own suites, say), as `RETAIN_GRAPH_LEAKS=1` tells; nil otherwise.
    public var isOfLibraryTypesOnly: Bool? = nil
    /// When no reference on the cycle is declared in the program's own code, the modules whose code
    /// declares them: `["XCTest"]` for XCTest's `<TestClass> ↓ testRun XCTestCaseRun ↓ test
    /// <TestClass>` (both properties are XCTest's, although the test class is yours), a
    /// dependency's modules for its own loops. Such a cycle is not the program's to fix and
    /// `RETAIN_GRAPH_LEAKS=1` does not count it. Nil when a reference is the program's, or when the
    /// report was not asked to attribute its cycles.
    public var libraryModules: [String]? = nil
    /// How many leaked cycles of this signature were found (1 or more).
    public var count: Int = 1
    /// How many heap objects all of them hold (``objectCount`` when ``count`` is 1).
    public var totalObjectCount: Int
    /// The bytes all of them hold, as the census recorded their allocations.
    public var bytes: Int = 0

    /// Creates a shape of leaked cycle; ``totalObjectCount`` is `objectCount` unless given.
    public init(
      signature: LeakSignature, cycleTypes: [String], objectCount: Int, sections: [TraceSection],
      allocationSite: [String]?, sequences: ClosedRange<UInt64>, madeBy: String? = nil,
      isOfLibraryTypesOnly: Bool? = nil, libraryModules: [String]? = nil, count: Int = 1,
      totalObjectCount: Int? = nil, bytes: Int = 0
    ) {
      self.signature = signature
      self.cycleTypes = cycleTypes
      self.objectCount = objectCount
      self.sections = sections
      self.allocationSite = allocationSite
      self.sequences = sequences
      self.madeBy = madeBy
      self.isOfLibraryTypesOnly = isOfLibraryTypesOnly
      self.libraryModules = libraryModules
      self.count = count
      self.totalObjectCount = totalObjectCount ?? objectCount
      self.bytes = bytes
    }

    private enum CodingKeys: String, CodingKey {
      case signature, cycleTypes, objectCount, sections, allocationSite, sequences, madeBy
      case isOfLibraryTypesOnly, libraryModules, count, totalObjectCount, bytes
    }

    /// Reads a shape; a dump written before shapes were counted has one instance per entry.
    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      signature = try container.decode(LeakSignature.self, forKey: .signature)
      cycleTypes = try container.decode([String].self, forKey: .cycleTypes)
      objectCount = try container.decode(Int.self, forKey: .objectCount)
      sections = try container.decode([TraceSection].self, forKey: .sections)
      allocationSite = try container.decodeIfPresent([String].self, forKey: .allocationSite)
      sequences = try container.decode(ClosedRange<UInt64>.self, forKey: .sequences)
      madeBy = try container.decodeIfPresent(String.self, forKey: .madeBy)
      isOfLibraryTypesOnly = try container.decodeIfPresent(Bool.self, forKey: .isOfLibraryTypesOnly)
      libraryModules = try container.decodeIfPresent([String].self, forKey: .libraryModules)
      count = try container.decodeIfPresent(Int.self, forKey: .count) ?? 1
      totalObjectCount = try container.decodeIfPresent(Int.self, forKey: .totalObjectCount) ?? objectCount
      bytes = try container.decodeIfPresent(Int.self, forKey: .bytes) ?? 0
    }
  }

  /// What the count could not attribute: each counts as held from outside.
  public struct Unexplained: Sendable, Hashable, Codable {
    /// Strong references the walk read between recorded objects that were not subtracted: read
    /// through storage the census does not record or whose words do not hold them (an existential
    /// or indirect enum box, a captured `var`'s box), or words equal to an address (a suspended task's
    /// frame, a key path's argument).
    public var references: Int
    /// Objects whose strong count is lower than the references counted to them (none, unless
    /// the objects changed while they were read): counted as held from outside.
    public var overcounted: Int
    /// Objects that are reported alive only because of these: with every such reference counted,
    /// they would be garbage.
    public var objectsKeptOut: Int
    /// The types of the objects kept out, most objects first, as `LeakBoxingOwner × 12` (at most
    /// ``keptOutTypesShown``): the objects to look at, with a walk, for a cycle the count could not
    /// attribute.
    public var keptOut: [String] = []

    /// The most types ``keptOut`` names.
    public static let keptOutTypesShown = 5

    public init(references: Int = 0, overcounted: Int = 0, objectsKeptOut: Int = 0, keptOut: [String] = []) {
      self.references = references
      self.overcounted = overcounted
      self.objectsKeptOut = objectsKeptOut
      self.keptOut = keptOut
    }

    private enum CodingKeys: String, CodingKey {
      case references, overcounted, objectsKeptOut, keptOut
    }

    /// Reads what was not explained; a dump written before the types were named has none.
    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      references = try container.decode(Int.self, forKey: .references)
      overcounted = try container.decode(Int.self, forKey: .overcounted)
      objectsKeptOut = try container.decode(Int.self, forKey: .objectsKeptOut)
      keptOut = try container.decodeIfPresent([String].self, forKey: .keptOut) ?? []
    }
  }

  /// The shapes of leaked cycle, most instances first, then oldest first.
  public var leaks: [LeakedCycle]
  /// How many live objects the census recorded and the count read.
  public var liveObjects: Int
  /// How many objects are garbage, each counted once (every shape's
  /// ``LeakedCycle/totalObjectCount``, and objects several cycles keep alive).
  public var leakedObjects: Int
  /// What the count could not attribute.
  public var unexplained: Unexplained

  /// Creates a report.
  public init(leaks: [LeakedCycle], liveObjects: Int, leakedObjects: Int, unexplained: Unexplained) {
    self.leaks = leaks
    self.liveObjects = liveObjects
    self.leakedObjects = leakedObjects
    self.unexplained = unexplained
  }

  /// Whether no leaked cycle was found.
  public var isEmpty: Bool { leaks.isEmpty }

  /// How many leaked cycles were found: every shape's ``LeakedCycle/count``.
  public var cycleCount: Int { leaks.reduce(0) { $0 + $1.count } }

  /// The shapes one of whose objects' types is `typeName` (short, `Parent`).
  /// - Parameter typeName: a short type name, or a closure's function.
  /// - Returns: the shapes.
  public func leaks(involving typeName: String) -> [LeakedCycle] {
    leaks.filter { $0.cycleTypes.contains(typeName) }
  }

  /// Whether a shape was found more than once: then the sections are shapes with their counts.
  var isGrouped: Bool { leaks.contains { $0.count > 1 } }

  public var description: String {
    var lines: [String] = []
    if leaks.isEmpty {
      lines.append("no leaked cycles among \(Self.number(liveObjects)) live objects the census recorded")
    } else {
      let cycleCount = cycleCount
      var cycles = cycleCount == 1 ? "1 leaked cycle" : "\(Self.number(cycleCount)) leaked cycles"
      if isGrouped { cycles += leaks.count == 1 ? " of 1 shape" : " of \(Self.number(leaks.count)) shapes" }
      var objects = leakedObjects == 1 ? "1 object" : "\(Self.number(leakedObjects)) objects"
      if isGrouped { objects += ", \(Self.bytes(leaks.reduce(0) { $0 + $1.bytes }))" }
      lines.append(
        "\(cycles) (\(objects)) among \(Self.number(liveObjects)) live objects the census recorded")
    }
    if !leaks.isEmpty { lines.append("\n" + cycleSections) }
    // What was not explained, when it kept an object out: otherwise it changed no answer.
    if (unexplained.references > 0 || unexplained.overcounted > 0) && unexplained.objectsKeptOut > 0 {
      lines.append("")
      var parts: [String] = []
      if unexplained.references > 0 {
        parts.append(
          "\(Self.number(unexplained.references)) strong reference\(unexplained.references == 1 ? "" : "s") "
            + "the walk read could not be attributed to the heap object holding \(unexplained.references == 1 ? "it" : "them") "
            + "(storage the census does not record, such as an existential's or indirect enum's box, or a word "
            + "equal to an address, such as a suspended task's)")
      }
      if unexplained.overcounted > 0 {
        parts.append(
          "\(Self.number(unexplained.overcounted)) object\(unexplained.overcounted == 1 ? "" : "s") had fewer strong "
            + "references than were counted to \(unexplained.overcounted == 1 ? "it" : "them")")
      }
      let kept = unexplained.objectsKeptOut
      var line =
        "not explained: \(parts.joined(separator: "; ")); counted as held from outside, which kept "
        + "\(Self.number(kept)) object\(kept == 1 ? "" : "s") out of the leaks"
      if !unexplained.keptOut.isEmpty {
        let more = kept > 0 && unexplained.keptOut.count == Unexplained.keptOutTypesShown ? ", …" : ""
        line +=
          ": \(unexplained.keptOut.joined(separator: ", "))\(more). If one of them is leaked, the count cannot "
          + "tell: walk it (ObjectGraph(reflecting:)) to see whether a cycle keeps it"
      }
      lines.append(line)
    }
    return lines.joined(separator: "\n")
  }

  /// Each shape's section of ``description`` (its headline, the trace of its oldest instance and its
  /// allocation site), a blank line between two; nothing of the census as a whole (live objects,
  /// what was not explained). When no shape was found more than once, each section is a leaked
  /// cycle's; otherwise each is a shape's, with its count, objects, bytes and allocation numbers.
  package var cycleSections: String {
    var lines: [String] = []
    let grouped = isGrouped
    for (index, leak) in leaks.enumerated() {
      if index > 0 { lines.append("") }
      let objects = leak.objectCount == 1 ? "1 object" : "\(Self.number(leak.objectCount)) objects"
      let types = leak.cycleTypes.joined(separator: ", ")
      if grouped {
        let cycles = leak.count == 1 ? "1 leaked cycle" : "\(Self.number(leak.count)) leaked cycles"
        let all = leak.totalObjectCount == 1 ? "1 object" : "\(Self.number(leak.totalObjectCount)) objects"
        let numbers =
          leak.sequences.lowerBound == leak.sequences.upperBound
          ? "allocation number \(Self.number(Int(clamping: leak.sequences.lowerBound)))"
          : "allocation numbers \(Self.number(Int(clamping: leak.sequences.lowerBound))) to "
            + Self.number(Int(clamping: leak.sequences.upperBound))
        lines.append(
          "shape \(index + 1) of \(leaks.count): \(cycles) (\(all), \(Self.bytes(leak.bytes)), \(numbers)), "
            + "the oldest of \(objects) (\(types)), signature \(leak.signature)")
      } else {
        lines.append(
          "leaked cycle \(index + 1) of \(leaks.count): \(objects) (\(types)), signature \(leak.signature)")
      }
      if let madeBy = leak.madeBy { lines.append("made by \(madeBy)") }
      lines.append(leak.trace)
      if let site = leak.allocationSite, !site.isEmpty {
        lines.append("allocated in \(site.prefix(4).joined(separator: " ← "))")
      }
    }
    return lines.joined(separator: "\n")
  }

  /// `96` → `96 bytes`, `6_400_000` → `6.4 MB` (decimal units, one decimal).
  static func bytes(_ value: Int) -> String {
    if value < 1000 { return value == 1 ? "1 byte" : "\(value) bytes" }
    let units = ["kB", "MB", "GB", "TB"]
    var scaled = Double(value) / 1000
    var unit = 0
    while scaled >= 999.95, unit < units.count - 1 {
      scaled /= 1000
      unit += 1
    }
    let tenths = Int((scaled * 10).rounded())
    return "\(tenths / 10).\(tenths % 10) \(units[unit])"
  }

  /// `1234567` → `1,234,567`.
  static func number(_ value: Int) -> String {
    let digits = Array(String(value))
    var text = ""
    for (index, digit) in digits.enumerated() {
      if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
      text.append(digit)
    }
    return text
  }
}

/// What identifies a leaked cycle from run to run: `CycleSignature`, the signature
/// `Cycle.signature` gives the same cycle found by a walk.
public typealias LeakSignature = CycleSignature
