// The commands need swift-argument-parser, which only the CommandLine trait brings (see
// WithoutCommandLine.swift for the executable built without it).
#if CommandLine
  import ArgumentParser
  import Foundation

  /// `text` or `json`: what `leaks` and `diff` print.
  enum DumpOutputFormat: String, CaseIterable, ExpressibleByArgument {
    case text, json
  }

  /// The output options of `leaks` and `diff`: the format, and where it goes.
  struct DumpOutputOptions: ParsableArguments {
    @Option(name: [.customShort("f"), .long], help: "The output format: text, json.")
    var format: DumpOutputFormat = .text

    @Option(
      name: [.customShort("o"), .long],
      help: ArgumentHelp(
        "The file to write (written only on success); '-' for standard output.", valueName: "file"))
    var output: String?

    /// Writes `data` to `--output` atomically, or to standard output.
    func emit(_ data: Data) throws { try StandardStreams.emit(data, to: output) }
  }

  struct LeaksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "leaks",
      abstract: "Print a census dump's leaked cycles; exit 1 when it has one.",
      discussion: """
        A census dump is the JSON file HeapCensus.writeDump(to:) writes (RetainGraphCensus). Each leaked \
        cycle is printed with its leak trace and fix.

        Exit status: 0 when the dump has no leaked cycle, 1 when it has one, 2 when the file is missing \
        or is not a census dump of version 1 or 2 (the message names the field), or the output cannot be \
        written.

        Example:
          retain-graph leaks dump.json
        """
    )

    @Argument(help: ArgumentHelp("The census dump.", valueName: "dump.json"))
    var dump: String

    @OptionGroup var outputOptions: DumpOutputOptions

    func run() throws {
      let file = try CensusDumpFile(path: dump)
      switch outputOptions.format {
      case .text: try outputOptions.emit(Data((file.leaksText + "\n").utf8))
      case .json: try outputOptions.emit(file.leaksJSON + Data("\n".utf8))
      }
      if file.leakCount > 0 { throw ExitCode(1) }
    }
  }
#endif
