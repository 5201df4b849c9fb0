// The commands need swift-argument-parser, which only the CommandLine trait brings (see
// WithoutCommandLine.swift for the executable built without it).
#if CommandLine
  public import ArgumentParser
  import Foundation
  import RetainGraph
  import RetainGraphRendering
  import RetainGraphSupport

  /// `--format`: the formats the library writes (its one list). PNG and PDF are binary: they go to a
  /// file unless `--output -` asks for standard output; pictures are what `--max-nodes` limits.
  extension OutputFormat: ExpressibleByArgument {}

  /// `--rank-dir`: the values of `DrawingStyle.RankDirection`.
  enum RankDirectionArgument: String, CaseIterable, ExpressibleByArgument {
    case auto, LR, TB

    var direction: DrawingStyle.RankDirection {
      switch self {
      case .auto: .automatic
      case .LR: .leftToRight
      case .TB: .topToBottom
      }
    }
  }

  /// The options shared by `sample` and `render`.
  struct OutputOptions: ParsableArguments {
    @Option(
      name: [.customShort("f"), .long],
      help: "The output format: \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
    var format: OutputFormat?

    @Option(
      name: [.customShort("o"), .long],
      help: ArgumentHelp(
        "The file to write (written only on success); '-' for standard output.",
        valueName: "file"))
    var output: String?

    @Flag(help: "Draw only the retain cycles and the shortest path from the root to each.")
    var cyclesOnly = false

    @Option(
      help: ArgumentHelp(
        "The layout direction: LR (left to right), TB (top to bottom) or auto (LR for a small graph; for a "
          + "larger one, the direction that keeps the picture narrower).",
        valueName: "auto|LR|TB"))
    var rankDir: RankDirectionArgument = .auto

    @Option(
      help: ArgumentHelp(
        "The most nodes a picture (dot, svg, png, pdf, html) draws; the others are collapsed into one '+N more' "
          + "node per holder, and a note on standard error says how many were left out.",
        valueName: "count|all"))
    var maxNodes: Limit = .count(Self.defaultMaxNodes)

    /// Graphviz lays out a few hundred nodes in about a second; a 2,000-node ring takes minutes.
    static let defaultMaxNodes = 200

    @Flag(help: "Label nodes with fully qualified type names (App.Presenter) instead of short ones.")
    var qualifiedNames = false

    @Option(
      name: .customLong("mark"),
      help: ArgumentHelp(
        "Mark a node on the html page (repeatable): its id (12, or n12 as the SVG names it), then "
          + "optionally ':' and why (12:'EventBus.observers grows').",
        valueName: "id[:note]"))
    var marks: [MarkArgument] = []

    @OptionGroup var report: ReportOptions

    func validate() throws {
      if output?.isEmpty == true { throw ValidationError("--output needs a file name (or '-' for stdout)") }
      try maxNodes.validate("--max-nodes")
    }

    /// How the graph is drawn.
    var style: DrawingStyle {
      DrawingStyle(
        qualifiedTypeNames: qualifiedNames, cyclesOnly: cyclesOnly, maxNodes: maxNodes.value,
        rankDirection: rankDir.direction)
    }

    /// The note for standard error when the node cap left nodes out of a picture, else nil.
    func capNote(for graph: ObjectGraph, format: OutputFormat) -> String? {
      guard format.isPicture, let cap = maxNodes.value else { return nil }
      let (drawn, candidates) = graph.drawnNodeCounts(style: style)
      guard drawn < candidates else { return nil }
      let which =
        cyclesOnly
        ? "of the \(candidates) nodes on the cycles and the paths to them" : "of \(candidates) nodes"
      return "note: drew \(drawn) \(which) (--max-nodes \(cap)); the others are collapsed into '+N more' "
        + "nodes. --max-nodes all draws every node (Graphviz may take minutes on thousands)."
    }

    /// The bytes of `graph` in `format`.
    func data(for graph: ObjectGraph, format: OutputFormat) throws -> Data {
      try graph.data(
        format, style: style, marking: marks.map { HTMLMark(node: $0.node, note: $0.note) },
        limits: report.limits)
    }

    /// Checks that the output can go where it was asked to, before doing any work.
    func checkDestination(for format: OutputFormat) throws {
      if !marks.isEmpty && format != .html {
        throw ValidationError("--mark marks nodes on the html page; add --format html")
      }
      if format.isBinary && output == nil {
        throw ValidationError(
          "\(format.rawValue) output is binary; pass --output FILE (or --output - for standard output)")
      }
    }

    /// Writes `graph` in `format` to `--output` or standard output, then the note on what the node
    /// cap left out, if anything, to standard error.
    func write(_ graph: ObjectGraph, format: OutputFormat) throws {
      try emit(try data(for: graph, format: format))
      if let note = capNote(for: graph, format: format) { StandardStreams.printError(note) }
    }

    /// Writes `data` to `--output` atomically, or to standard output.
    func emit(_ data: Data) throws { try StandardStreams.emit(data, to: output) }
  }

  extension StandardStreams {
    /// Writes `data` to the file an `--output` option names (atomically: the file is replaced only
    /// once all of it is written), or to standard output for nil or `-`.
    static func emit(_ data: Data, to output: String?) throws {
      guard let output, output != "-" else {
        try writeOutput(data)
        return
      }
      do {
        try AtomicFile.write(data, to: URL(fileURLWithPath: output))
      } catch {
        throw CommandFailure(error.description)
      }
    }
  }

  /// `--mark`: a node id (`12` or `n12`), optionally followed by `:` and a note.
  struct MarkArgument: ExpressibleByArgument {
    var node: Int
    var note: String

    init?(argument: String) {
      let parts = argument.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
      var id = parts[0].trimmingCharacters(in: .whitespaces)
      if id.hasPrefix("n") { id.removeFirst() }
      guard let node = Int(id), node >= 0 else { return nil }
      self.node = node
      self.note = parts.count > 1 ? String(parts[1]) : "marked"
    }
  }

  /// A failure of a command's input or output (a missing file, a malformed snapshot, an unwritable
  /// output): reported on standard error with exit status 2.
  struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }

  /// Reads and validates a snapshot file.
  /// The file is read through a window, never whole: a 1M-object snapshot's text (250 MB) is not
  /// in memory beside its graph.
  func readSnapshot(at path: String) throws -> ObjectGraph {
    do {
      return try ObjectGraph(jsonFile: path)
    } catch .unreadable {
      let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file"
      throw CommandFailure("\(path): \(reason)")
    } catch .invalid(let error) {
      throw CommandFailure("\(path): \(error)")
    }
  }
#endif
