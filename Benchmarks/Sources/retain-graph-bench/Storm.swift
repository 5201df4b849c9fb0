import Foundation
import RetainGraph
import Synchronization

// `--storm [COUNT] [MUTATORS]`: `ObjectGraph(snapshotting:)` beside threads that keep replacing the
// objects of a 200-object graph (the reliability campaign of issue 20.8: there, 0.3–1.2 % of the calls
// ended in a crashed child and 7 in 1,000 in a timeout). Prints how many calls returned a graph, how
// many children were forked (a crashed or stalled child is replaced by a fresh fork), the errors, and
// the calls' times; then takes 100 snapshots from 4 threads at once and prints this process's count
// of open descriptors (/proc/self/fd) before and after.

/// Children this process has seen end (`SIGCHLD`): every fork of a snapshot, the retries included.
private let childrenEnded = Atomic<Int>(0)

private final class StormChild {
  let step: Int
  init(_ step: Int) { self.step = step }
}

private final class StormFamily: @unchecked Sendable {
  var children: [StormChild]
  init(count: Int) { children = (0..<count).map(StormChild.init) }
}

private final class StormRoot: @unchecked Sendable {
  let families: [StormFamily]
  init(families: Int, total: Int) {
    self.families = (0..<families).map { _ in StormFamily(count: total / families) }
  }
}

private final class Flag: Sendable {
  private let value = Atomic<Bool>(false)
  var isSet: Bool { value.load(ordering: .acquiring) }
  func set() { value.store(true, ordering: .releasing) }
}

/// This process's open descriptors and what each refers to (`pipe:[…]`, a path).
private func openDescriptors() -> [String: String] {
  let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
  var descriptors: [String: String] = [:]
  for name in names {
    descriptors[name] =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")) ?? "?"
  }
  return descriptors
}

private func milliseconds(_ duration: Duration) -> String {
  let (seconds, attoseconds) = duration.components
  return String(format: "%.1f ms", Double(seconds) * 1e3 + Double(attoseconds) / 1e15)
}

func runStorm(count: Int, mutatorCount: Int) -> Never {
  signal(SIGCHLD) { _ in childrenEnded.add(1, ordering: .relaxed) }
  let objects = 200
  let root = StormRoot(families: mutatorCount, total: objects)
  let nodes = 1 + mutatorCount + mutatorCount * (objects / mutatorCount)
  _ = ObjectGraph(reflecting: StormRoot(families: mutatorCount, total: mutatorCount))
  let stop = Flag()
  let replacements = Atomic<Int>(0)
  let finished = DispatchGroup()
  for family in root.families {
    finished.enter()
    Thread {
      var step = 0
      while !stop.isSet {
        family.children[step % family.children.count] = StormChild(step)
        step += 1
      }
      replacements.add(step, ordering: .relaxed)
      finished.leave()
    }.start()
  }

  var returned = 0
  var inconsistent = 0
  var errors: [String: Int] = [:]
  var times: [Duration] = []
  let startedChildren = childrenEnded.load(ordering: .relaxed)
  let start = ContinuousClock.now
  for _ in 0..<count {
    let callStart = ContinuousClock.now
    do {
      let graph = try ObjectGraph(snapshotting: root, timeout: .seconds(10))
      returned += 1
      if graph.nodeCount != nodes || graph.edgeCount != nodes - 1 { inconsistent += 1 }
    } catch {
      errors["\(error)", default: 0] += 1
    }
    times.append(ContinuousClock.now - callStart)
  }
  let total = ContinuousClock.now - start
  stop.set()
  finished.wait()
  // Every child has been reaped by its call; its SIGCHLD may still be on its way.
  usleep(100_000)
  let children = childrenEnded.load(ordering: .relaxed) - startedChildren

  times.sort()
  print(
    "storm: \(count) snapshots of a \(nodes)-object graph beside \(mutatorCount) mutating threads "
      + "(\(replacements.load(ordering: .relaxed)) objects replaced meanwhile), \(milliseconds(total)) in all"
  )
  print("  returned a graph: \(returned) of \(count); inconsistent graphs: \(inconsistent)")
  print("  children forked: \(children) (\(children - count) fresh forks after a crashed or stalled child)")
  print(errors.isEmpty ? "  errors: none" : "  errors:")
  for (error, times) in errors.sorted(by: { $0.value > $1.value }) { print("    \(times) × \(error)") }
  print(
    "  time per call: median \(milliseconds(times[times.count / 2])), "
      + "99th percentile \(milliseconds(times[min(times.count - 1, times.count * 99 / 100)])), "
      + "slowest \(milliseconds(times[times.count - 1]))")

  // Parallel callers: each fork inherits the pipes the other calls have open. Threads of their own
  // (Dispatch's first use would open its own descriptors, an epoll and eventfds, and keep them).
  let before = openDescriptors()
  let failures = Atomic<Int>(0)
  let callers = DispatchGroup()
  for _ in 0..<4 {
    callers.enter()
    Thread {
      for _ in 0..<25 where (try? ObjectGraph(snapshotting: root, timeout: .seconds(10))) == nil {
        failures.add(1, ordering: .relaxed)
      }
      callers.leave()
    }.start()
  }
  callers.wait()
  let after = openDescriptors()
  print(
    "parallel: 100 snapshots from 4 threads, \(100 - failures.load(ordering: .relaxed)) returned a graph; "
      + "open descriptors \(before.count) before, \(after.count) after")
  for (descriptor, target) in after.sorted(by: { $0.key < $1.key }) where before[descriptor] != target {
    print("  left open: \(descriptor) → \(target)")
  }
  let passed = returned == count && inconsistent == 0 && failures.load(ordering: .relaxed) == 0
  exit(passed && after == before ? 0 : 1)
}
