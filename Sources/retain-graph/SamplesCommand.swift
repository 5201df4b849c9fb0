// The commands need swift-argument-parser, which only the CommandLine trait brings (see
// WithoutCommandLine.swift for the executable built without it).
#if CommandLine
  import ArgumentParser
  import Samples

  struct SamplesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "samples",
      abstract: "List the sample scenarios, one per line: its name, then what it shows.",
      discussion: "Example:\n  retain-graph samples"
    )

    func run() throws {
      let width = Sample.all.map(\.name.count).max() ?? 0
      for sample in Sample.all {
        let padding = String(repeating: " ", count: width - sample.name.count)
        try StandardStreams.printOutput("\(sample.name)\(padding)  \(sample.summary)")
      }
    }
  }
#endif
