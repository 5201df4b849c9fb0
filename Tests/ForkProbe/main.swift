import Foundation
import RetainGraph
import RetainGraphCensus
import RetainGraphProcess

// A test helper (ForkedChildLifetimeTests): starts a snapshot whose forked children sleep for two
// minutes (a test fault), and prints the process id of the last try's child once it runs (the
// earlier tries are replaced as stalled after a quarter of a second; the last is not). The test kills this
// process with SIGKILL and checks that the child goes with it.

final class ProbeRoot {}

// `pool async` / `pool blocking`: see PoolProgress.swift.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "pool" {
  await runPoolProgress(async: CommandLine.arguments[2] == "async")
  exit(0)
}

// `leaks-unstarted` (LeakCountBlindnessTests): asks for the leaked cycles of a process that never
// started the census, and prints what it was told.
if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "leaks-unstarted" {
  do {
    print("report: \(try HeapCensus.leaks(timeout: .seconds(30)))")
  } catch {
    print("error: \(error)")
  }
  do {
    print("scope report: \(try HeapCensus.leaks(in: LeakScope(), timeout: .seconds(30)))")
  } catch {
    print("scope error: \(error)")
  }
  exit(0)
}

// `known-leak` (KnownCyclesAtExitTests, run with RETAIN_GRAPH_LEAKS=1 in a package with a known-cycles
// file): leaves one leaked cycle (two ProbeLeakPair objects) and exits; the report at exit does the rest.
final class ProbeLeakPair {
  var other: ProbeLeakPair?

  /// Makes the pair in a frame of its own, so that no local holds it at exit.
  @inline(never) static func leak() {
    let first = ProbeLeakPair()
    first.other = ProbeLeakPair()
    first.other?.other = first
  }
}

if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "known-leak" {
  ProbeLeakPair.leak()
  exit(0)
}

// `slow-sweep`: see SlowSweep.swift.
if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "slow-sweep" {
  runSlowSweep()
}

// `dump-server DIR`: see DumpServer.swift.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "dump-server" {
  runDumpServer(directory: CommandLine.arguments[2])
}

let root = ProbeRoot()
_ = try? ObjectGraph(
  snapshotting: root, timeout: .seconds(120), childFault: .hang(.seconds(120)),
  trace: { trace in
    guard trace.attempt == ForkedChild.tries else { return }
    FileHandle.standardOutput.write(Data("\(trace.pid)\n".utf8))
  })
