import Foundation
import Glibc
import Testing

@testable import RetainGraph

/// What bounds a forked child's life besides its answer: a timeout meaning "no limit", and the
/// parent's death (issue 29, item 8).
@Suite("A forked child's lifetime")
struct ForkedChildLifetimeTests {
  final class Leaf {}

  /// A timeout far past any real one (a user's "no limit") is a deadline like any other: before,
  /// converting it to poll's milliseconds overflowed and trapped (that conversion is checked on its
  /// own in RetainGraphProcessTests, `aTimeoutMeaningNoLimitIsTheLongestPoll`).
  @Test(arguments: [Duration.seconds(Int64.max / 2), .seconds(Int64.max)])
  func aTimeoutMeaningNoLimitWalks(timeout: Duration) throws {
    let root = Leaf()
    let graph = try ObjectGraph(snapshotting: root, timeout: timeout)
    #expect(graph.nodeCount == 1)
  }

  /// A helper process (`retain-graph-fork-probe`) starts a snapshot whose child sleeps for two
  /// minutes; the helper is killed with SIGKILL, and the child goes with it (its parent-death
  /// signal) instead of sleeping on as an orphan.
  @Test func aChildDiesWithItsKilledParent() throws {
    let probe = try #require(Self.probe, "retain-graph-fork-probe was not built next to the tests")
    let process = Process()
    process.executableURL = probe
    let output = Pipe()
    process.standardOutput = output
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // The probe prints its snapshot child's pid once the child runs.
    var text = ""
    while !text.contains("\n") {
      let data = output.fileHandleForReading.availableData
      if data.isEmpty { break }
      text += String(decoding: data, as: UTF8.self)
    }
    let child = try #require(
      Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), "probe said \(text)")
    defer { kill(child, SIGKILL) }
    #expect(Self.isAlive(child), "the snapshot's child was not running before its parent was killed")
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    let deadline = ContinuousClock.now + .seconds(10)
    while Self.isAlive(child), ContinuousClock.now < deadline { usleep(10_000) }
    #expect(!Self.isAlive(child), "the snapshot's child outlived its killed parent")
  }

  /// Whether `pid` runs (a zombie waiting for whoever adopted it to reap it has ended).
  static func isAlive(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let nameEnd = stat.lastIndex(of: ")")
    else { return false }
    let state = stat[stat.index(after: nameEnd)...].split(separator: " ").first
    return state != "Z" && state != "X"
  }

  /// The probe built next to this test bundle.
  static let probe: URL? = {
    var candidates: [URL] = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
    if let executable = Bundle.main.executableURL {
      candidates.append(executable.deletingLastPathComponent())
    }
    candidates += Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }.map {
      $0.bundleURL.deletingLastPathComponent()
    }
    return candidates.map { $0.appendingPathComponent("retain-graph-fork-probe") }.first {
      FileManager.default.isExecutableFile(atPath: $0.path)
    }
  }()
}
