// The commands need swift-argument-parser, which only the CommandLine trait brings (see
// WithoutCommandLine.swift for the executable built without it).
#if CommandLine
  import ArgumentParser
  import RetainGraph

  /// A count, or `all` for no limit: the value of `--max-nodes`, `--max-hops` and `--max-cycles`.
  enum Limit: ExpressibleByArgument, CustomStringConvertible, Equatable {
    case count(Int)
    case all

    init?(argument: String) {
      if argument == "all" {
        self = .all
      } else if let count = Int(argument) {
        self = .count(count)
      } else {
        return nil
      }
    }

    /// The count, or nil for `all`.
    var value: Int? {
      if case .count(let count) = self { return count }
      return nil
    }

    var description: String { value.map(String.init) ?? "all" }

    /// Throws when the count is below 1.
    func validate(_ option: String) throws {
      if let value, value < 1 { throw ValidationError("\(option) must be at least 1 or 'all', got \(value)") }
    }
  }

  /// How much of a leak trace `check` and `--format text` print: a 1M-object loop is its first and
  /// last references and a count, not two million lines.
  struct ReportOptions: ParsableArguments {
    static let defaultMaxHops = 20
    static let defaultMaxCycles = 20

    @Option(
      help: ArgumentHelp(
        "The most references a trace prints: a longer one shows its first and last references (and the "
          + "one to break) and how many it leaves out.",
        valueName: "count|all"))
    var maxHops: Limit = .count(Self.defaultMaxHops)

    @Option(
      help: ArgumentHelp(
        "The most cycles printed; the others are counted in a last line.", valueName: "count|all"))
    var maxCycles: Limit = .count(Self.defaultMaxCycles)

    func validate() throws {
      try maxHops.validate("--max-hops")
      try maxCycles.validate("--max-cycles")
    }

    var limits: ReportLimits { ReportLimits(maxHops: maxHops.value, maxCycles: maxCycles.value) }

    /// The report within the limits, or the one-line summary when there is nothing to report.
    func text(of graph: ObjectGraph) -> String {
      let report = graph.report(limits: limits)
      return report.isEmpty ? graph.summary() : report
    }
  }
#endif
