import Foundation
import Testing

/// A dump taken by signal from a running process, then `retain-graph diff` and `retain-graph leaks`
/// on the dumps (issue 31.3): the probe (`retain-graph-fork-probe dump-server DIR`, see
/// Tests/ForkProbe/DumpServer.swift) runs the census with planted cycles and the SIGUSR2 handler.
@Suite struct DumpSignalTests {
  /// The probe built next to `retain-graph`.
  static let probe: URL? = CLITests.executable.map {
    $0.deletingLastPathComponent().appendingPathComponent("retain-graph-fork-probe")
  }.flatMap { FileManager.default.isExecutableFile(atPath: $0.path) ? $0 : nil }

  /// Reads the probe's standard output a line at a time.
  final class Lines {
    let handle: FileHandle
    var buffer = Data()
    init(_ handle: FileHandle) { self.handle = handle }

    /// The next line, or nil at the end of the output.
    func next() -> String? {
      while true {
        if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
          let line = String(decoding: buffer[buffer.startIndex..<end], as: UTF8.self)
          buffer = Data(buffer[(end + 1)...])
          return line
        }
        let chunk = handle.availableData
        if chunk.isEmpty { return nil }
        buffer.append(chunk)
      }
    }
  }

  @Test func dumpsTakenBySignalAreDiffedAndTheirLeaksPrinted() throws {
    let probe = try #require(Self.probe, "retain-graph-fork-probe was not built next to retain-graph")
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let process = Process()
    process.executableURL = probe
    process.arguments = ["dump-server", directory.path]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    // A hung probe is killed: its output then ends and the test fails instead of waiting forever.
    let watchdog = DispatchWorkItem { [process] in
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + 180, execute: watchdog)
    defer {
      watchdog.cancel()
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
      process.waitUntilExit()
    }
    let lines = Lines(output.fileHandleForReading)
    func send(_ command: String) { input.fileHandleForWriting.write(Data((command + "\n").utf8)) }

    try #require(lines.next() == "ready")
    kill(process.processIdentifier, SIGUSR2)
    let first = try #require(lines.next())
    try #require(first.hasPrefix("dumped "), "\(first)")
    send("grow")
    try #require(lines.next() == "grown")
    kill(process.processIdentifier, SIGUSR2)
    let second = try #require(lines.next())
    try #require(second.hasPrefix("dumped "), "\(second)")
    send("status")
    // The probe's own view: 25 requests in its registry, both leaked cycles still alive (nothing can
    // free them), the fixed twin freed.
    #expect(lines.next() == "requests 25 sessions-alive true connections-alive true fixed-alive false")
    send("exit")
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "the process went on running after both dumps, then exited")

    let pid = process.processIdentifier
    let firstPath = directory.appendingPathComponent("census-dump-\(pid)-1.json").path
    let secondPath = directory.appendingPathComponent("census-dump-\(pid)-2.json").path
    #expect(first == "dumped \(firstPath)")
    #expect(second == "dumped \(secondPath)")
    #expect(CLITests.contents(of: directory) == ["census-dump-\(pid)-1.json", "census-dump-\(pid)-2.json"])

    // diff: the requests grew by the 25 the registry holds, with their holder; the leaked connection
    // pair grew by one each; the fixed twin and the session (there at both dumps) did not grow.
    let diff = try CLITests.run("diff", firstPath, secondPath)
    #expect(diff.status == 0)
    #expect(diff.stderr == "")
    let text = diff.text
    #expect(text.hasPrefix("from dump 1 (pid \(pid), "), "\(text)")
    #expect(text.contains("\nretain_graph_fork_probe.ServerRequest: 0 → 25 (+25)\n  held by "), "\(text)")
    #expect(text.contains("\nretain_graph_fork_probe.ServerConnection: 0 → 1 (+1)\n"), "\(text)")
    #expect(text.contains("\nretain_graph_fork_probe.ServerConnectionDelegate: 0 → 1 (+1)\n"), "\(text)")
    #expect(!text.contains("ServerFixed"), "\(text)")
    #expect(!text.contains("ServerSession:"), "\(text)")
    #expect(!text.contains("ServerRegistry:"), "\(text)")

    // leaks: the first dump has the session's cycle; the second both, each with its fix.
    let firstLeaks = try CLITests.run("leaks", firstPath)
    #expect(firstLeaks.status == 1)
    #expect(firstLeaks.text.contains("ServerSession"), "\(firstLeaks.text)")
    #expect(!firstLeaks.text.contains("ServerConnection"), "\(firstLeaks.text)")
    let secondLeaks = try CLITests.run("leaks", secondPath)
    #expect(secondLeaks.status == 1)
    #expect(secondLeaks.text.hasPrefix("2 leaked cycles (3 objects)"), "\(secondLeaks.text)")
    #expect(secondLeaks.text.contains("ServerSession"), "\(secondLeaks.text)")
    #expect(
      secondLeaks.text.contains(
        """
        ServerConnection
          ↓ delegate   ← break this
        ServerConnectionDelegate
          ↓ connection
        ServerConnection (loop closes)
        fix: make ServerConnection.delegate weak
        """), "\(secondLeaks.text)")
    #expect(!secondLeaks.text.contains("ServerFixed"), "\(secondLeaks.text)")
    #expect(!secondLeaks.text.contains("ServerRequest"), "\(secondLeaks.text)")
  }
}
