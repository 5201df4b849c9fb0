// The commands need swift-argument-parser, which only the CommandLine trait brings (see
// WithoutCommandLine.swift for the executable built without it).
#if CommandLine
  import ArgumentParser
  import RetainGraph
  import RetainGraphRendering

  struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "render",
      abstract: "Draw a saved JSON snapshot (SVG by default).",
      discussion: """
        The snapshot is one written by `ObjectGraph.jsonData()` or `retain-graph sample NAME --format json`.

        Examples:
          retain-graph render snapshot.json > graph.svg
          retain-graph render snapshot.json --format pdf --output graph.pdf
          retain-graph render snapshot.json --format dot --cycles-only
          retain-graph render snapshot.json --format text
          retain-graph render snapshot.json --format html --output graph.html

        The html page is one self-contained file (no network): the drawing, the retain cycles and \
        their fixes, the path from the root to the node you click, a search by type name, and the \
        nodes --mark names (a growing holder) marked.

        Pictures draw at most \(OutputOptions.defaultMaxNodes) nodes by default (--max-nodes; a note on \
        standard error says what was left out); text shortens long traces (--max-hops, --max-cycles).
        """
    )

    @Argument(help: ArgumentHelp("The JSON snapshot to draw.", valueName: "snapshot.json"))
    var snapshot: String

    @OptionGroup var options: OutputOptions

    func run() throws {
      let format = options.format ?? .svg
      try options.checkDestination(for: format)
      let graph = try readSnapshot(at: snapshot)
      try options.write(graph, format: format)
    }
  }
#endif
