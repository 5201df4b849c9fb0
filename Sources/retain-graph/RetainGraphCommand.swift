import ArgumentParser
import Foundation

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

      Exit status: 0 on success, 1 when `check` finds a retain cycle, 2 for a usage error or bad input.
      """,
    subcommands: [SamplesCommand.self, SampleCommand.self, RenderCommand.self, CheckCommand.self]
  )

  /// Like `ParsableCommand.main()`, but usage errors and bad input exit with status 2 (not 64), with
  /// the reason on standard error.
  static func main() {
    var command: any ParsableCommand
    do {
      command = try parseAsRoot()
    } catch {
      // Help and version requests exit 0; every parse or validation error exits 2 with the usage.
      guard exitCode(for: error) != .success else { Self.exit(withError: error) }
      fail(fullMessage(for: error))
    }
    do {
      try command.run()
    } catch let code as ExitCode {
      Self.exit(withError: code)
    } catch let error as ValidationError {
      fail("error: \(error.message)")
    } catch {
      // `--help` parses to a help command whose run() throws the help request.
      guard exitCode(for: error) != .success else { Self.exit(withError: error) }
      fail("error: \(error)")
    }
  }

  /// Writes `message` to standard error and exits with status 2.
  private static func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    Self.exit(withError: ExitCode(2))
  }
}
