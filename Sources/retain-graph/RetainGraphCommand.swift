// The commands need swift-argument-parser, which only the CommandLine trait brings (see
// WithoutCommandLine.swift for the executable built without it).
#if CommandLine
  import ArgumentParser
  import Foundation
  import RetainGraph

  @main
  struct RetainGraphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "retain-graph",
      abstract: "Find retain cycles in Swift object graphs, explain them and draw them.",
      discussion: """
        Examples:
          retain-graph samples
          retain-graph sample viper-module
          retain-graph sample viper-module --format svg --output viper-module.svg
          retain-graph render snapshot.json --format pdf --output graph.pdf
          retain-graph check snapshot.json
          retain-graph check snapshot.json --known .retain-graph-known.json
          retain-graph check snapshot.json --format sarif --output retain-graph.sarif
          retain-graph baseline snapshot.json --output .retain-graph-known.json
          retain-graph leaks dump.json
          retain-graph diff before.json after.json

        Exit status: 0 on success, 1 when `check` finds a retain cycle or `leaks` a leaked cycle, 2 for a usage error, bad input \
        or output that cannot be written, 141 when standard output is a closed pipe (with SIGPIPE \
        ignored; otherwise the signal ends the command).
        """,
      version: retainGraphVersion,
      subcommands: [
        SamplesCommand.self, SampleCommand.self, RenderCommand.self, CheckCommand.self, BaselineCommand.self,
        LeaksCommand.self, DiffCommand.self,
      ]
    )

    /// Like `ParsableCommand.main()`, but usage errors and bad input exit with status 2 (not 64), with
    /// the reason on standard error, and output that cannot be written (a full disk, a closed pipe) is
    /// a message and a non-zero status, never a trap.
    static func main() {
      var command: any ParsableCommand
      do {
        command = try parseAsRoot()
      } catch {
        // Help and version requests exit 0; every parse or validation error exits 2 with the usage.
        guard exitCode(for: error) != .success else { printHelp(for: error) }
        fail(fullMessage(for: error))
      }
      do {
        try command.run()
      } catch let code as ExitCode {
        Self.exit(withError: code)
      } catch let failure as StandardStreams.WriteFailure {
        fail(failure.message, status: failure.exitStatus)
      } catch let error as ValidationError {
        fail("error: \(error.message)")
      } catch {
        // `--help` parses to a help command whose run() throws the help request.
        guard exitCode(for: error) != .success else { printHelp(for: error) }
        fail("error: \(error)")
      }
    }

    /// Writes the help `request` asks for to standard output and exits 0, or 2 when it cannot be written.
    private static func printHelp(for request: any Error) -> Never {
      do throws(StandardStreams.WriteFailure) {
        try StandardStreams.printOutput(fullMessage(for: request))
      } catch {
        fail(error.message, status: error.exitStatus)
      }
      Self.exit(withError: ExitCode.success)
    }

    /// Writes `message` to standard error and exits with `status`.
    private static func fail(_ message: String, status: Int32 = 2) -> Never {
      StandardStreams.printError(message)
      Self.exit(withError: ExitCode(status))
    }
  }
#endif
