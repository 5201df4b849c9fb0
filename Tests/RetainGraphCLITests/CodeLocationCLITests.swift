import Foundation
import Testing

/// A binary without debug information says where nothing is rather than guess: the same
/// `retain-graph`, its DWARF removed (`objcopy --strip-debug`, what a build without `-g` gives),
/// prints every fix without a location, and otherwise the same report.
@Suite struct CodeLocationCLITests {
  /// Runs `executable` with `arguments`; its standard output, and its exit status.
  static func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, text: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  @Test(arguments: ["viper-module", "tool-host", "observer-token", "coordinator-parent"])
  func withoutDebugInformationNoFixHasALocation(_ sample: String) throws {
    let executable = try #require(CLITests.executable, "retain-graph was not built next to the tests")
    let objcopy = try #require(
      ["/usr/bin/objcopy", "/bin/objcopy"].first { FileManager.default.isExecutableFile(atPath: $0) },
      "objcopy (binutils) is needed to strip the debug information")
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let stripped = directory.appendingPathComponent("retain-graph")
    let strip = try Self.run(
      URL(fileURLWithPath: objcopy), ["--strip-debug", executable.path, stripped.path])
    try #require(strip.status == 0)

    let full = try Self.run(executable, ["sample", sample])
    let bare = try Self.run(stripped, ["sample", sample])
    #expect(full.status == 0 && bare.status == 0)
    #expect(full.text.contains(" — Samples/"))
    #expect(!bare.text.contains(" — "))
    let withoutLocations = full.text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      line.range(of: " — Samples/").map { line[..<$0.lowerBound] } ?? line
    }
    #expect(bare.text == withoutLocations.joined(separator: "\n"))
    // Its snapshot has no locations either.
    let json = try Self.run(stripped, ["sample", sample, "--format", "json"])
    #expect(json.status == 0 && !json.text.contains("sourceLocations"))
  }
}
