// The commands need swift-argument-parser, which only the CommandLine trait brings (see
// WithoutCommandLine.swift for the executable built without it).
#if CommandLine
  import ArgumentParser
  import RetainGraph
  import RetainGraphRendering
  import Samples

  struct SampleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "sample",
      abstract: "Build a sample scenario and print its leak trace, or draw it.",
      discussion: """
        Examples:
          retain-graph sample viper-module
          retain-graph sample viper-module --format dot --cycles-only
          retain-graph sample viper-module --format svg --output viper-module.svg
          retain-graph sample lazy-closure --format json --output lazy-closure.json
          retain-graph sample viper-module --format png --output - > viper-module.png
        """
    )

    @Argument(help: "The sample's name (see `retain-graph samples`).")
    var name: String

    @OptionGroup var options: OutputOptions

    func run() throws {
      guard let sample = Sample.named(name) else {
        let names = Sample.all.map { "  \($0.name)" }.joined(separator: "\n")
        throw ValidationError("unknown sample '\(name)'; the samples are:\n\(names)")
      }
      let format = options.format ?? .text
      try options.checkDestination(for: format)
      let instance = sample.make()
      let graph = ObjectGraph(reflecting: instance.root)
      instance.breakCycles()
      try options.write(graph, format: format)
    }
  }
#endif
