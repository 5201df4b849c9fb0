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
/// Its `description` is the text, one leak trace and fix per cycle, as ``ObjectGraph/report()``
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
  /// One leaked cycle: a group of objects that only each other (and nothing outside) hold.
  public struct LeakedCycle: Sendable, Hashable, Codable {
    /// What identifies the cycle from run to run: its types and references, not addresses.
    public var signature: LeakSignature
    /// The short type names of the objects on the cycle (closures by their function), sorted.
    public var cycleTypes: [String]
    /// How many heap objects the cycle holds, itself included: its members and what only it keeps
    /// alive, an array's buffer or a dictionary's storage counted as an object of its own.
    public var objectCount: Int
    /// The leak trace and fix lines, as ``ObjectGraph/report()`` writes them for the graph of the
    /// group, walked from ``cycleTypes``' oldest object.
    public var trace: String
    /// Each fix of the cycle's plan, as a sentence (``Cycle/Break/fix``).
    public var fixes: [String]
    /// Where the oldest object of the cycle was allocated (function names, innermost first), when
    /// the census recorded call stacks.
    public var allocationSite: [String]?
    /// The census's allocation numbers of the group's oldest and newest objects (see
    /// ``HeapCensus/Mark``).
    public var sequences: ClosedRange<UInt64>
    /// The function that allocated the cycle's oldest class instance, as `RETAIN_GRAPH_LEAKS=1`
    /// names it from the allocation's call stack (the test, in a test run: the outermost frame of
    /// the program's own code around the allocation, generated thunks left out); nil otherwise.
    public var madeBy: String? = nil
    /// Whether every class on the cycle is defined outside the program, in a library loaded beside
    /// it (XCTest's own suites, say), as `RETAIN_GRAPH_LEAKS=1` tells; nil otherwise.
    public var isOfLibraryTypesOnly: Bool? = nil
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

    public init(references: Int = 0, overcounted: Int = 0, objectsKeptOut: Int = 0) {
      self.references = references
      self.overcounted = overcounted
      self.objectsKeptOut = objectsKeptOut
    }
  }

  /// The leaked cycles, oldest first.
  public var leaks: [LeakedCycle]
  /// How many live objects the census recorded and the count read.
  public var liveObjects: Int
  /// How many objects are garbage (every cycle's ``LeakedCycle/objectCount``, and objects several
  /// cycles keep alive).
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

  /// The leaked cycles one of whose objects' types is `typeName` (short, `Parent`).
  /// - Parameter typeName: a short type name, or a closure's function.
  /// - Returns: the cycles.
  public func leaks(involving typeName: String) -> [LeakedCycle] {
    leaks.filter { $0.cycleTypes.contains(typeName) }
  }

  public var description: String {
    var lines: [String] = []
    let cycles = leaks.count == 1 ? "1 leaked cycle" : "\(leaks.count) leaked cycles"
    if leaks.isEmpty {
      lines.append("no leaked cycles among \(Self.number(liveObjects)) live objects the census recorded")
    } else {
      let objects = leakedObjects == 1 ? "1 object" : "\(Self.number(leakedObjects)) objects"
      lines.append(
        "\(cycles) (\(objects)) among \(Self.number(liveObjects)) live objects the census recorded")
    }
    if !leaks.isEmpty { lines.append("\n" + cycleSections) }
    if unexplained.references > 0 || unexplained.overcounted > 0 {
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
      lines.append(
        "not explained: \(parts.joined(separator: "; ")); counted as held from outside, which kept "
          + "\(Self.number(unexplained.objectsKeptOut)) object\(unexplained.objectsKeptOut == 1 ? "" : "s") out of the leaks"
      )
    }
    return lines.joined(separator: "\n")
  }

  /// Each cycle's section of ``description`` (its headline, trace and allocation site), a blank line
  /// between two; nothing of the census as a whole (live objects, what was not explained).
  package var cycleSections: String {
    var lines: [String] = []
    for (index, leak) in leaks.enumerated() {
      if index > 0 { lines.append("") }
      let objects = leak.objectCount == 1 ? "1 object" : "\(Self.number(leak.objectCount)) objects"
      lines.append(
        "leaked cycle \(index + 1) of \(leaks.count): \(objects) (\(leak.cycleTypes.joined(separator: ", "))), "
          + "signature \(leak.signature)")
      if let madeBy = leak.madeBy { lines.append("made by \(madeBy)") }
      lines.append(leak.trace)
      if let site = leak.allocationSite, !site.isEmpty {
        lines.append("allocated in \(site.prefix(4).joined(separator: " ← "))")
      }
    }
    return lines.joined(separator: "\n")
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

/// What identifies a leaked cycle from run to run: ``RetainGraph/CycleSignature``, the signature
/// ``RetainGraph/Cycle/signature`` gives the same cycle found by a walk.
public typealias LeakSignature = CycleSignature
