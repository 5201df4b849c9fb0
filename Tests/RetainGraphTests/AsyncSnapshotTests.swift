import Foundation
import Glibc
import RetainGraphProcess
import Synchronization
import Testing

@testable import RetainGraph

/// The `async` forms of the forked searches (issue 29, item 6) wait off the cooperative pool.
@Suite("Async snapshots")
struct AsyncSnapshotTests {
  final class Pair: @unchecked Sendable {
    var other: Pair?
  }

  @Test func anAsyncSnapshotFindsTheCycleTheRuntimeKeeps() async throws {
    var first: Pair? = Pair()
    first?.other = Pair()
    first?.other?.other = first
    let graph = try await ObjectGraph.snapshot(of: try #require(first), timeout: .seconds(60))
    #expect(graph.nodeCount == 2)
    #expect(graph.cycles.count == 1)
    weak let probe = first
    first?.other?.other = nil
    first = nil
    #expect(probe == nil)
  }

  /// Cancelling the waiting task kills the forked child (here one that would sleep a minute) and
  /// throws `CancellationError`.
  @Test func cancellingTheTaskKillsTheChild() async throws {
    let children = Mutex<[Int32]>([])
    let root = Pair()
    let task = Task {
      try await ObjectGraph.snapshot(
        of: root, timeout: .seconds(120), childFault: .hang(.seconds(60)),
        trace: { trace in children.withLock { $0.append(trace.pid) } })
    }
    // The last try's child is not replaced when it stalls: wait for it, then cancel. The task may
    // start late in a loaded parallel run (the pool is shared with every test): a generous bound.
    let deadline = ContinuousClock.now + .seconds(600)
    while children.withLock({ $0.count }) < ForkedChild.tries, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    let started = ContinuousClock.now
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(ContinuousClock.now - started < .seconds(30))
    let last = try #require(children.withLock { $0.last })
    // The child was killed and reaped by the call: no such process any more.
    #expect(kill(last, 0) != 0)
  }

  // Needs the binary readers: what it checks is found through symbols (hidden field types, key

  // path arguments, blocks, globals); without them it is noted unread.
  #if BinaryReaders
    /// In a process of its own (where no other test uses the pool), 4 x processors + 1 forked
    /// searches whose children first sleep a second run at once beside a task that counts its 10 ms
    /// naps: through the async forms it keeps counting; through the blocking forms, called from the
    /// same tasks, the pool's threads wait for the children and it nearly stops. Both answer alike.
    @Test func thePoolKeepsServingWhileAsyncSearchesRun() throws {
      let probe = try #require(ForkedChildLifetimeTests.probe, "retain-graph-fork-probe was not built")
      let offPool = try Self.poolRun(probe, "async")
      let onPool = try Self.poolRun(probe, "blocking")
      for run in [offPool, onPool] {
        #expect(run["cycles"] == "1")
        #expect(run["holder"] == "PoolRegistry.shared.items[0]")
        #expect(run["released"] == "true")
      }
      let offRate = try Self.ticksPerSecond(offPool)
      let onRate = try Self.ticksPerSecond(onPool)
      #expect(offRate >= 20, "\(offPool)")
      #expect(offRate > 3 * onRate, "off the pool \(offPool); on it \(onPool)")
    }
  #endif

  static func poolRun(_ probe: URL, _ mode: String) throws -> [String: String] {
    let process = Process()
    process.executableURL = probe
    process.arguments = ["pool", mode]
    let output = Pipe()
    process.standardOutput = output
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    var fields: [String: String] = [:]
    for field in text.split(whereSeparator: \.isWhitespace) {
      let parts = field.split(separator: "=", maxSplits: 1)
      if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
    }
    return fields
  }

  static func ticksPerSecond(_ run: [String: String]) throws -> Double {
    let ticks = try #require(run["ticks"].flatMap(Double.init))
    let milliseconds = try #require(run["milliseconds"].flatMap(Double.init))
    return ticks * 1000 / max(milliseconds, 1)
  }
}
