import Foundation
import Testing

/// A leak count in a process that never started the census looks at nothing: it must say so, not
/// report "no leaked cycles" (the probe, `retain-graph-fork-probe leaks-unstarted`, asks for one).
@Suite struct LeakCountBlindnessTests {
  @Test func aCountBeforeTheCensusEverStartedThrowsInsteadOfReportingNoCycles() throws {
    let probe = try #require(
      DumpSignalTests.probe, "retain-graph-fork-probe was not built next to retain-graph")
    let process = Process()
    process.executableURL = probe
    process.arguments = ["leaks-unstarted"]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let reason =
      "the heap census was never started in this process, so it recorded nothing (start it before the code "
      + "under test allocates: HeapCensus.start(), HeapCensus.run { }, or LeakScope().run { })"
    #expect(text == "error: \(reason)\nscope error: \(reason)\n")
  }
}
