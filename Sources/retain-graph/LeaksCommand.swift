// The commands need swift-argument-parser, which only the CommandLine trait brings (see
// WithoutCommandLine.swift for the executable built without it).
#if CommandLine
  import ArgumentParser
  import Foundation

  /// `text` or `json`: what `leaks` and `diff` print.
  enum DumpOutputFormat: String, CaseIterable, ExpressibleByArgument {
    case text, json
  }

  struct LeaksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "leaks",
      abstract: "Print a census dump's leaked cycles; exit 1 when it has one.",
      discussion: """
        A census dump is the JSON file HeapCensus.writeDump(to:) writes (RetainGraphCensus). Each leaked \
        cycle is printed with its leak trace and fix.

        Exit status: 0 when the dump has no leaked cycle, 1 when it has one, 2 when the file is missing \
        or is not a census dump of version 1 (the message names the field), or the output cannot be \
        written.

        Example:
          retain-graph leaks dump.json
        """
    )

    @Argument(help: ArgumentHelp("The census dump.", valueName: "dump.json"))
    var dump: String

    @Option(name: [.customShort("f"), .long], help: "The output format: text, json (the leak report).")
    var format: DumpOutputFormat = .text

    func run() throws {
      let file = try CensusDumpFile(path: dump)
      switch format {
      case .text: try StandardStreams.printOutput(file.leaksText)
      case .json: try StandardStreams.writeOutput(file.leaksJSON + Data("\n".utf8))
      }
      if file.leakCount > 0 { throw ExitCode(1) }
    }
  }
#endif
