// The commands need swift-argument-parser, which only the CommandLine trait brings (see
// WithoutCommandLine.swift for the executable built without it).
#if CommandLine
  import ArgumentParser
  import Foundation
  import RetainGraph
  import RetainGraphKnownCycles

  struct BaselineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "baseline",
      abstract: "Write a known-cycles file listing every cycle of the snapshots.",
      discussion: """
        Writes a known-cycles file (.retain-graph-known.json) with one entry per distinct cycle of \
        the snapshots, by its signature (its types and references, the same from run to run), \
        sorted: 'check --known FILE' and the test assertions (assertNoCycles reads the file at the \
        package root) then pass on these cycles and fail on new ones, and on one whose entry has \
        expired. When the output file exists, its entries for cycles that still occur keep their \
        reason and expiry; entries of cycles that no longer occur are left out.

        Exit status: 0 when the file was written, 2 when a snapshot is missing or invalid, the \
        existing file is malformed, or the file cannot be written.

        Examples:
          retain-graph baseline app.json settings.json -o .retain-graph-known.json
          retain-graph baseline app.json -o known.json --expires 2027-03-31
        """
    )

    @Argument(help: ArgumentHelp("The JSON snapshots whose cycles to list.", valueName: "snapshot.json"))
    var snapshots: [String]

    @Option(
      name: .shortAndLong,
      help: ArgumentHelp("The known-cycles file to write ('-': standard output).", valueName: "file"))
    var output: String

    @Option(help: ArgumentHelp("The reason of each new entry.", valueName: "text"))
    var reason = "known when the baseline was written"

    @Option(help: ArgumentHelp("The last day new entries hold (YYYY-MM-DD).", valueName: "day"))
    var expires: String?

    func validate() throws {
      if let expires, !KnownCycles.isDay(expires) {
        throw ValidationError("--expires \(expires) is not a day (YYYY-MM-DD)")
      }
      if snapshots.isEmpty { throw ValidationError("give at least one snapshot") }
    }

    func run() throws {
      var cycles: [(signature: CycleSignature, fix: String?)] = []
      for snapshot in snapshots {
        let graph = try readSnapshot(at: snapshot)
        cycles += graph.cycles.map { ($0.signature, $0.fixPlan.first?.fix) }
      }
      var previous: KnownCycles?
      if output != "-", FileManager.default.fileExists(atPath: output) {
        do {
          previous = try KnownCycles.read(at: output)
        } catch {
          throw CommandFailure("\(error) (the file --output would replace)")
        }
      }
      let entries = KnownCycles.baseline(of: cycles, reason: reason, expires: expires, previous: previous)
      try StandardStreams.emit(Data(KnownCycles.text(of: entries).utf8), to: output)
    }
  }

  extension CheckCommand {
    /// What the known-cycles file `path` says of `graph`'s cycles: its lines, whether a cycle fails
    /// (new, or its entry expired), and which cycles do.
    static func knownCycles(of graph: ObjectGraph, file path: String) throws -> KnownCyclesVerdict {
      let known: KnownCycles
      do {
        known = try KnownCycles.read(at: path)
      } catch {
        throw CommandFailure(error.description)
      }
      let verdict = known.verdict(
        on: graph.cycles.enumerated().map { ($0.offset, $0.element.signature) },
        today: KnownCycles.day(of: Date()))
      return KnownCyclesVerdict(
        text: verdict.lines(goneWhere: " in this snapshot").joined(separator: "\n"), fails: verdict.fails,
        failing: (verdict.new + verdict.expired).map(\.index).sorted())
    }
  }

  /// What `check --known` prints of a known-cycles file's verdict, and what fails.
  struct KnownCyclesVerdict {
    /// The verdict's lines: each cycle new, known or expired, and the entries the snapshot no
    /// longer has.
    var text: String
    /// Whether a cycle is new or its entry expired.
    var fails: Bool
    /// The indices of those cycles in the graph's ``ObjectGraph/cycles``, ascending.
    var failing: [Int]
  }
#endif
