// A package that depends on RetainGraph with `traits: []` turns the CommandLine trait off, and with it
// swift-argument-parser; `swift run retain-graph` there still builds this executable. Without the
// trait it has no commands: it says so and prints the command that runs the real one from RetainGraph's
// own checkout (whose default traits include CommandLine).
#if !CommandLine
  import Foundation

  @main
  enum RetainGraphWithoutCommandLine {
    static func main() {
      // Sources/retain-graph/WithoutCommandLine.swift → the checkout.
      let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().resolvingSymlinksInPath().path
      let arguments = CommandLine.arguments.dropFirst().map(shellQuoted)
      StandardStreams.printError(
        """
        error: this retain-graph was built without RetainGraph's CommandLine trait (the package that \
        depends on RetainGraph turns it off with `traits: []`), so it has no commands. Run it from \
        RetainGraph's checkout, where the trait is on:
          swift run --package-path \((([shellQuoted(checkout), "retain-graph"]) + arguments).joined(separator: " "))
        """)
      exit(2)
    }

    /// `text` as one shell word.
    static func shellQuoted(_ text: String) -> String {
      let plain =
        !text.isEmpty
        && text.unicodeScalars.allSatisfy {
          CharacterSet.alphanumerics.contains($0) || "/._-+=:,@%".unicodeScalars.contains($0)
        }
      return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
  }
#endif
