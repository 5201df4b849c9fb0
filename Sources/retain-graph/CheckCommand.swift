// The commands need swift-argument-parser, which only the CommandLine trait brings (see
// WithoutCommandLine.swift for the executable built without it).
#if CommandLine
  import ArgumentParser
  import RetainGraph

  struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "check",
      abstract: "Print a snapshot's leak trace; exit 1 when it has a retain cycle.",
      discussion: """
        Exit status: 0 when the snapshot has no strong retain cycle, 1 when it has one, 2 when the file \
        is missing or is not a valid snapshot, or the report cannot be written. Meant for CI.

        A long trace is shortened to its first and last references and a count (--max-hops, \
        default \(ReportOptions.defaultMaxHops)); at most \(ReportOptions.defaultMaxCycles) cycles are \
        printed, the others counted (--max-cycles). 'all' prints everything.

        Example:
          retain-graph check snapshot.json
        """
    )

    @Argument(help: ArgumentHelp("The JSON snapshot to check.", valueName: "snapshot.json"))
    var snapshot: String

    @OptionGroup var report: ReportOptions

    func run() throws {
      let graph = try readSnapshot(at: snapshot)
      try StandardStreams.printOutput(report.text(of: graph))
      if !graph.cycles.isEmpty { throw ExitCode(1) }
    }
  }
#endif
