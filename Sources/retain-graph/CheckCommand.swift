// The commands need swift-argument-parser, which only the CommandLine trait brings (see
// WithoutCommandLine.swift for the executable built without it).
#if CommandLine
  import ArgumentParser
  import RetainGraph

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

        Example:
          retain-graph check snapshot.json
        """
    )

    @Argument(help: ArgumentHelp("The JSON snapshot to check.", valueName: "snapshot.json"))
    var snapshot: String

    @OptionGroup var report: ReportOptions

    @Option(help: ArgumentHelp("A known-cycles file whose cycles pass (see 'baseline').", valueName: "file"))
    var known: String?

    func run() throws {
      let graph = try readSnapshot(at: snapshot)
      var text = report.text(of: graph)
      if let incomplete = graph.incompleteness(graph.walkNotes, mayMiss: "a retain cycle") {
        text += "\n\n" + incomplete.howToSee
      }
      var fails = !graph.cycles.isEmpty
      if let known {
        let verdict = try Self.knownCycles(of: graph, file: known)
        text += (text.isEmpty ? "" : "\n\n") + verdict.text
        fails = verdict.fails
      }
      try StandardStreams.printOutput(text)
      if fails { throw ExitCode(1) }
      if !graph.isComplete { throw ExitCode(3) }
    }
  }
#endif
