// The commands need swift-argument-parser, which only the CommandLine trait brings (see
// WithoutCommandLine.swift for the executable built without it).
#if CommandLine
  import ArgumentParser
  import Foundation
  import RetainGraph
  import RetainGraphRendering

  struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "check",
      abstract: "Print a snapshot's leak trace; exit 1 when it has a retain cycle, 3 when it is incomplete.",
      discussion: """
        Exit status: 0 when the snapshot has no strong retain cycle and its walk saw everything, 1 when \
        it has a retain cycle, 2 when the file is missing or is not a valid snapshot, or the report \
        cannot be written, 3 when it has no retain cycle in what its walk saw but the walk was \
        incomplete (a limit cut it, or a part of your objects was not read: the notes say what and \
        how to see it). Notes in a library's own storage do not make it incomplete. Meant for CI.

        A long trace is shortened to its first and last references and a count (--max-hops, \
        default \(ReportOptions.defaultMaxHops)); at most \(ReportOptions.defaultMaxCycles) cycles are \
        printed, the others counted (--max-cycles). 'all' prints everything.

        --known FILE (a known-cycles file, see 'baseline'): a cycle the file lists passes until its \
        entry expires; the output then says of each cycle whether it is new, known (and why) or \
        expired (with the entry's reason), and which entries this snapshot no longer has. Exit 1 only \
        for a new cycle or an expired entry.

        --format diagnostics prints each fix as a compiler warning at the declaration to change \
        (FILE:LINE:COLUMN: warning: FIX (retain cycle: …)), which editors and CI logs annotate; \
        --format sarif writes the fixes as a SARIF 2.1.0 log for code scanning. Both leave out known \
        cycles, say on standard error what the walk did not read and what the known-cycles file says, \
        and exit as the text does.

        Examples:
          retain-graph check snapshot.json
          retain-graph check snapshot.json --format diagnostics
          retain-graph check snapshot.json --format sarif --output retain-graph.sarif
        """
    )

    @Argument(help: ArgumentHelp("The JSON snapshot to check.", valueName: "snapshot.json"))
    var snapshot: String

    @OptionGroup var report: ReportOptions

    @Option(help: ArgumentHelp("A known-cycles file whose cycles pass (see 'baseline').", valueName: "file"))
    var known: String?

    @Option(
      name: [.customShort("f"), .long],
      help: ArgumentHelp(
        "The output format: text (the leak trace), diagnostics (compiler warnings), sarif (SARIF 2.1.0).",
        valueName: ReportFormat.allValueStrings.joined(separator: "|")))
    var format: ReportFormat = ReportFormat(.text)

    @Option(
      name: [.customShort("o"), .long],
      help: ArgumentHelp(
        "The file to write (atomically, once the check has run); '-' for standard output.",
        valueName: "file"))
    var output: String?

    func validate() throws {
      if output?.isEmpty == true { throw ValidationError("--output needs a file name (or '-' for stdout)") }
    }

    func run() throws {
      let graph = try readSnapshot(at: snapshot)
      let incomplete = graph.incompleteness(graph.walkNotes, mayMiss: "a retain cycle")?.howToSee
      var fails = !graph.cycles.isEmpty
      var verdict: KnownCyclesVerdict?
      if let known {
        verdict = try Self.knownCycles(of: graph, file: known)
        fails = verdict?.fails ?? fails
      }
      let data: Data
      switch format.format {
      case .diagnostics, .sarif:
        // Standard output (or the file) holds the format alone; what a reader of the log needs
        // besides goes to standard error.
        let failing = verdict?.failing ?? Array(graph.cycles.indices)
        data =
          format.format == .sarif
          ? graph.sarifData(ofCycles: failing) : Data(graph.diagnostics(ofCycles: failing).utf8)
        for text in [incomplete, verdict?.text] {
          if let text, !text.isEmpty { StandardStreams.printError(text) }
        }
      default:
        var text = report.text(of: graph)
        if let incomplete { text += "\n\n" + incomplete }
        if let verdict { text += (text.isEmpty ? "" : "\n\n") + verdict.text }
        data = Data((text + "\n").utf8)
      }
      try StandardStreams.emit(data, to: output)
      if fails { throw ExitCode(1) }
      if !graph.isComplete { throw ExitCode(3) }
    }
  }

  /// `check --format`: the formats of ``OutputFormat`` that report the cycles and their fixes
  /// (`isReport`: text, diagnostics, sarif), so the help and the errors list those alone.
  struct ReportFormat: ExpressibleByArgument {
    var format: OutputFormat

    init(_ format: OutputFormat) { self.format = format }

    init?(argument: String) {
      guard let format = OutputFormat(rawValue: argument), format.isReport else { return nil }
      self.format = format
    }

    static var allValueStrings: [String] { OutputFormat.allCases.filter(\.isReport).map(\.rawValue) }

    var defaultValueDescription: String { format.rawValue }
  }
#endif
