import Foundation
import Testing

/// A fork waits for the heap census's table lock (so that a child never inherits a half-made
/// change). A query's sweep of a long table held it for seconds to minutes under load, and forked
/// walks beside a census timed out before their child existed (121.7 s for a 15 s timeout, in a
/// whole-suite run). The sweep now lets a waiting fork have the lock between two chunks. The probe
/// (`retain-graph-fork-probe slow-sweep`, Tests/ForkProbe/SlowSweep.swift) runs it in a process of
/// its own: a 5 s sweep, and a snapshot forked once the sweep started.
@Suite struct ForkDuringSweepTests {
  @Test func aSnapshotForkedDuringALongSweepDoesNotWaitForItsEnd() throws {
    let probe = try #require(
      DumpSignalTests.probe, "retain-graph-fork-probe was not built next to retain-graph")
    let process = Process()
    process.executableURL = probe
    process.arguments = ["slow-sweep"]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(text == "snapshot of 3 nodes during the sweep: true\n")
  }
}
