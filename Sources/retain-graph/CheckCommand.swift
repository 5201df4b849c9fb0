import ArgumentParser
import RetainGraph

struct CheckCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check",
    abstract: "Print a snapshot's leak trace; exit 1 when it has a retain cycle.",
    discussion: """
      Exit status: 0 when the snapshot has no strong retain cycle, 1 when it has one, 2 when the file \
      is missing or is not a valid snapshot. Meant for CI.

      Example:
        retain-graph check snapshot.json
      """
  )

  @Argument(help: ArgumentHelp("The JSON snapshot to check.", valueName: "snapshot.json"))
  var snapshot: String

  func run() throws {
    let graph = try readSnapshot(at: snapshot)
    let report = graph.report()
    print(report.isEmpty ? graph.summary() : report)
    if !graph.cycles.isEmpty { throw ExitCode(1) }
  }
}
