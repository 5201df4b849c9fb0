import Foundation
import RetainGraph
import Samples
import Testing

/// A cycle's signature is the same in two processes: each sample walked by `retain-graph sample`
/// twice (two processes, two heaps, other addresses), read back from its JSON snapshot, and walked here.
@Suite struct SignatureAcrossProcessesTests {
  @Test(arguments: ["viper-module", "lazy-closure", "notes-cache"])
  func twoProcessesGiveOneSignature(name: String) throws {
    var runs: [[CycleSignature]] = []
    for _ in 0..<2 {
      let run = try CLITests.run("sample", name, "--format", "json")
      try #require(run.status == 0, "\(run.stderr)")
      runs.append(try ObjectGraph(jsonData: run.stdout).cycles.map(\.signature))
    }
    let instance = try #require(Sample.named(name)).make()
    defer { instance.breakCycles() }
    let here = ObjectGraph(reflecting: instance.root).cycles.map(\.signature)
    #expect(!here.isEmpty)
    #expect(runs[0] == runs[1])
    #expect(runs[0] == here)
  }
}
