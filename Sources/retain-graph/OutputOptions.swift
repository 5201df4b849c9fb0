import ArgumentParser
import Foundation
import RetainGraph
import RetainGraphRendering

/// What the CLI can write.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
  case text, dot, svg, png, pdf, json

  /// PNG and PDF are binary: they go to a file unless `--output -` asks for standard output.
  var isBinary: Bool { self == .png || self == .pdf }
}

/// `--rank-dir`: the values of `DOTStyle.RankDirection`.
enum RankDirectionArgument: String, CaseIterable, ExpressibleByArgument {
  case auto, LR, TB

  var direction: DOTStyle.RankDirection {
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
      "The most nodes to draw (at least 1); the others are collapsed into one '+N more' node per holder.",
      valueName: "count"))
  var maxNodes: Int?

  @Flag(help: "Label nodes with fully qualified type names (App.Presenter) instead of short ones.")
  var qualifiedNames = false

  func validate() throws {
    if output?.isEmpty == true { throw ValidationError("--output needs a file name (or '-' for stdout)") }
    if let maxNodes, maxNodes < 1 { throw ValidationError("--max-nodes must be at least 1, got \(maxNodes)") }
  }

  /// How the graph is drawn.
  var style: DOTStyle {
    DOTStyle(
      qualifiedTypeNames: qualifiedNames, cyclesOnly: cyclesOnly, maxNodes: maxNodes,
      rankDirection: rankDir.direction)
  }

  /// The bytes of `graph` in `format`.
  func data(for graph: ObjectGraph, format: OutputFormat) throws -> Data {
    let style = style
    switch format {
    case .text:
      let report = graph.report()
      let text =
        report.isEmpty ? graph.summary() : report
      return Data((text + "\n").utf8)
    case .dot: return Data(graph.dot(style: style).utf8)
    case .json: return graph.jsonData()
    case .svg: return try graph.render(.svg, style: style)
    case .png: return try graph.render(.png, style: style)
    case .pdf: return try graph.render(.pdf, style: style)
    }
  }

  /// Checks that the output can go where it was asked to, before doing any work.
  func checkDestination(for format: OutputFormat) throws {
    if format.isBinary && output == nil {
      throw ValidationError(
        "\(format.rawValue) output is binary; pass --output FILE (or --output - for standard output)")
    }
  }

  /// Writes `data` to `--output` atomically, or to standard output.
  func emit(_ data: Data) throws {
    guard let output, output != "-" else {
      FileHandle.standardOutput.write(data)
      return
    }
    do {
      try AtomicFile.write(data, to: URL(fileURLWithPath: output))
    } catch {
      throw CommandFailure(error.message)
    }
  }
}

/// A failure of a command's input or output (a missing file, a malformed snapshot, an unwritable
/// output): reported on standard error with exit status 2.
struct CommandFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Reads and validates a snapshot file.
func readSnapshot(at path: String) throws -> ObjectGraph {
  let data: Data
  do {
    data = try Data(contentsOf: URL(fileURLWithPath: path))
  } catch {
    let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file"
    throw CommandFailure("\(path): \(reason)")
  }
  do {
    return try ObjectGraph(jsonData: data)
  } catch {
    throw CommandFailure("\(path): \(error)")
  }
}
