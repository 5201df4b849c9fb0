public import RetainGraph

extension LeakReport {
  /// One group of alike cycles of a leaked cycle's graph, as values: its heading, its fix plan and the
  /// library's own loops, as `ObjectGraph.report()` prints them below its summary.
  public struct TraceSection: Sendable, Hashable, Codable {
    /// The line above the fixes when the graph has several cycles or the plan several edits
    /// (`cycle 1 of 2 (2 objects: Parent, Child):`), as `ObjectGraph.report()` writes it; nil
    /// otherwise.
    public var heading: String?
    /// How many cycles of the graph are alike (the same fixes): one edit fixes them all.
    public var cycleCount: Int
    /// How many edits the plan is (more than ``fixes`` lists when a huge component's plan is
    /// described in part).
    public var editCount: Int
    /// Each fix of the plan of the group's first cycle.
    public var fixes: [Fix]
    /// The line naming the library's own loops left among the members once the plan is applied
    /// (`Cycle.libraryLoopMembers`); nil when there are none.
    public var libraryLoop: String?

    /// Creates a section.
    public init(
      heading: String? = nil, cycleCount: Int = 1, editCount: Int? = nil, fixes: [Fix],
      libraryLoop: String? = nil
    ) {
      self.heading = heading
      self.cycleCount = cycleCount
      self.editCount = editCount ?? fixes.count
      self.fixes = fixes
      self.libraryLoop = libraryLoop
    }

    /// The section's lines: the heading, each fix's trace and edit, the library's loops.
    var lines: [String] {
      var lines: [String] = heading.map { [$0] } ?? []
      let alike = cycleCount > 1 ? ", one edit for all \(cycleCount) cycles" : ""
      for (number, fix) in fixes.enumerated() {
        if number > 0 { lines.append("") }
        if let first = fix.path.first {
          lines += LeakTrace.lines(
            start: first.holder,
            hops: fix.path.map { (label: $0.label, ownership: $0.ownership, target: $0.target) },
            marked: fix.brokenStep, closesLoop: true)
        }
        if !fix.isReachable { lines.append("(not reachable from the root)") }
        let place = fix.location.map { " — \($0.file):\($0.line)" } ?? ""
        lines.append(
          (editCount > 1 ? "fix \(number + 1) of \(editCount): \(fix.advice)" : "fix: \(fix.advice)") + alike
            + place)
        if let alternative = fix.alternative {
          let place = alternative.location.map { " — \($0.file):\($0.line)" } ?? ""
          lines.append("  or \(alternative.advice), \(alternative.condition)\(place)")
          if let decision = alternative.decision {
            lines.append(decision.line(captured: alternative.breakFrees))
          }
        }
      }
      if let libraryLoop {
        if !fixes.isEmpty { lines.append("") }
        lines.append(libraryLoop)
      }
      return lines
    }
  }

  /// One fix of a leaked cycle's plan, as values (`Cycle.Break`'s): the chain from the cycle's
  /// oldest object round the loop it breaks, the reference to weaken, the edit and where it is made.
  public struct Fix: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The references from the oldest object to the loop, then round the loop back to its first
    /// object.
    public var path: [TraceStep]
    /// The index in ``path`` of the reference to weaken (marked `← break this`).
    public var brokenStep: Int?
    /// Whether the oldest object reaches the loop (it does, unless the loop lies beside it).
    public var isReachable: Bool
    /// The ownership idiom the reference matches.
    public var idiom: Cycle.Break.Idiom
    /// The edit, one sentence (`Cycle.Break.fix`): `make Child.parent weak`.
    public var advice: String
    /// Where the declaration the edit changes is written, when the debug information says.
    public var location: CodeLocation?
    /// The other edit that breaks the same loop, when the cycle cannot tell which of the two to
    /// make (`Cycle.Break.alternative`).
    public var alternative: Alternative?

    /// The reference to weaken: ``path``'s ``brokenStep``.
    public var reference: TraceStep? { brokenStep.map { path[$0] } }

    /// Creates a fix.
    public init(
      path: [TraceStep], brokenStep: Int?, isReachable: Bool = true, idiom: Cycle.Break.Idiom, advice: String,
      location: CodeLocation? = nil, alternative: Alternative? = nil
    ) {
      self.path = path
      self.brokenStep = brokenStep
      self.isReachable = isReachable
      self.idiom = idiom
      self.advice = advice
      self.location = location
      self.alternative = alternative
    }

    /// The fix as ``LeakedCycle/fixes`` lists it: the edit; with another edit, both (`…; or make
    /// FeedSession.socket weak`), or the one the census decided with its reason.
    public var description: String {
      guard let alternative else { return advice }
      switch alternative.decision {
      case nil: return "\(advice); or \(alternative.advice)"
      case .firstEdit: return advice
      case .secondEdit(let live, let only):
        return
          "\(alternative.advice) (\(only) of \(live) live \(alternative.breakFrees) owned only by closures: the "
          + "closure's weak capture would free them while in use)"
      }
    }
  }

  /// The second edit of a fix (`Cycle.Break.Alternative`), and which of the two the census chose
  /// from the live instances, if it could.
  public struct Alternative: Sendable, Hashable, Codable {
    /// The edit, one sentence: `make FeedSession.socket weak`.
    public var advice: String
    /// The reference it weakens: the captured object's stored property.
    public var reference: TraceStep
    /// When this edit is the one to make, as the report says it (`Cycle.Break.Alternative.condition`).
    public var condition: String
    /// The type (short name) the first edit frees if nothing else owns it: the captured object's.
    public var breakFrees: String
    /// Where the property is declared, when the debug information says.
    public var location: CodeLocation?
    /// Which edit the live instances of ``breakFrees`` tell to make; nil when none was alive.
    public var decision: Decision?

    /// Creates an alternative.
    public init(
      advice: String, reference: TraceStep, condition: String, breakFrees: String,
      location: CodeLocation? = nil,
      decision: Decision? = nil
    ) {
      self.advice = advice
      self.reference = reference
      self.condition = condition
      self.breakFrees = breakFrees
      self.location = location
      self.decision = decision
    }
  }

  /// What the census saw of the live instances of the type a fix's first edit frees, to choose
  /// between its two edits.
  public enum Decision: Sendable, Hashable, Codable {
    /// Each of the `live` instances read has another owner: the first edit keeps them.
    case firstEdit(live: Int)
    /// `ownedOnlyByClosures` of the `live` instances read are owned only by the break's closures:
    /// the first edit would free them while in use, so the second is the one to make.
    case secondEdit(live: Int, ownedOnlyByClosures: Int)

    /// The trace's line below the alternative.
    func line(captured: String) -> String {
      switch self {
      case .firstEdit(let live):
        "  the census sees \(live) live \(captured), each with another owner: the first edit keeps them"
      case .secondEdit(let live, let only):
        "  the census sees \(only) of \(live) live \(captured) owned only by closures: make the second edit "
          + "(the first would free them while in use)"
      }
    }
  }
}

extension LeakReport.TraceSection {
  /// The sections of a leaked cycle's `graph`, as its report prints them.
  package static func sections(of graph: ObjectGraph) -> [Self] {
    sections(of: graph, reported: graph.reportSections())
  }

  /// The sections of a leaked cycle's `graph`, as its report prints them: `reported`, its
  /// `reportSections()` (made once by the caller, which reads their fix plans too).
  package static func sections(of graph: ObjectGraph, reported: [ReportSection]) -> [Self] {
    reported.map { section in
      Self(
        heading: section.heading, cycleCount: section.cycleCount, editCount: section.edits,
        fixes: section.cycle.fixPlan.map { fix in
          let (path, marked, reachable) = graph.tracePath(of: fix)
          return LeakReport.Fix(
            path: path.map { TraceStep($0, in: graph) }, brokenStep: marked, isReachable: reachable,
            idiom: fix.idiom, advice: fix.fix, location: fix.location,
            alternative: fix.alternative.map {
              LeakReport.Alternative(
                advice: $0.fix, reference: TraceStep($0.edge, in: graph), condition: $0.condition,
                breakFrees: $0.breakFrees, location: $0.location)
            })
        },
        libraryLoop: section.libraryLoop)
    }
  }
}
