import Foundation
import RetainGraph

/// An object of a list that may store a task whose closure captures it: a poller asleep between
/// ticks (issue 19's shape), so that each such object is on a cycle through its task.
final class TaskOwner: @unchecked Sendable {
  var next: TaskOwner?
  var task: Task<Void, Never>?
  var ticks = 0
  var values = [Int](repeating: 7, count: 16)
  var onTick: (() -> Void)?

  func start() {
    task = Task {
      while !Task.isCancelled {
        self.ticks += 1
        try? await Task.sleep(for: .seconds(3_600))
      }
    }
  }
}

/// `--tasks [SIZE…]`: a list of `TaskOwner`s, one in `every` storing a suspended task, walked with
/// its cycles (best of five), against the same list with no task stored: what tasks cost the walk
/// (a task node, its closure and its frames' words per task) and the analysis (a cycle per task).
/// `TASK_BENCH_TASKS_FIRST=1` starts the tasks before the list is first walked (so that no freed
/// graph memory is reused by the tasks' frames, whose unwritten slots then hold no stale object
/// address); `TASK_BENCH_CLOSURES=1` stores a closure capturing the object instead of a task (the
/// same cycles without tasks). Sizes stay small: the cycles' reports cost time and memory that
/// grow with the number of cycles times the list's length (30,000 objects with 3,000 closure
/// cycles exceed 4 GB).
func runTaskBenchmark(sizes: [Int], every: Int = 10) -> Never {
  print("shape        objects     tasks    nodes      RetainGraph   time       same list without tasks")
  for size in sizes {
    let owners = (0..<size).map { _ in TaskOwner() }
    for index in 1..<size { owners[index - 1].next = owners[index] }
    let root = owners[0]
    let options = GraphOptions(maxNodes: 10_000_000)
    _ = ObjectGraph(reflecting: TaskOwner())

    func measure() -> (time: Double, nodes: Int, cycles: Int) {
      var nodes = 0
      var cycles = 0
      let time =
        (0..<5).map { _ in
          seconds {
            let graph = ObjectGraph(reflecting: root, options: options)
            cycles = graph.cycles.count
            nodes = graph.nodeCount
            precondition(graph.walkNotes.isEmpty, "\(graph.walkNotes)")
          }
        }.min() ?? .infinity
      return (time, nodes, cycles)
    }

    let tasksFirst = ProcessInfo.processInfo.environment["TASK_BENCH_TASKS_FIRST"] != nil
    var plain: (time: Double, nodes: Int, cycles: Int) = (0, 0, 0)
    if !tasksFirst { plain = measure() }
    let holders = stride(from: 0, to: size, by: every).map { owners[$0] }
    let closures = ProcessInfo.processInfo.environment["TASK_BENCH_CLOSURES"] != nil
    for owner in holders {
      if closures {
        owner.onTick = { owner.ticks += 1 }
        owner.ticks = 1
      } else {
        owner.start()
      }
    }
    // Every task has ticked once and gone to sleep.
    while holders.contains(where: { $0.ticks == 0 }) { usleep(1_000) }
    usleep(200_000)
    let withTasks = measure()
    if tasksFirst {
      for owner in holders { owner.task?.cancel() }
      usleep(200_000)
      for owner in holders {
        owner.task = nil
        owner.onTick = nil
      }
      plain = measure()
    }
    print(
      (closures ? "closure list " : "task list    ")
        + String(size).padding(toLength: 12, withPad: " ", startingAt: 0)
        + String(holders.count).padding(toLength: 9, withPad: " ", startingAt: 0)
        + String(withTasks.nodes).padding(toLength: 11, withPad: " ", startingAt: 0)
        + rate(withTasks.nodes, withTasks.time).padding(toLength: 14, withPad: " ", startingAt: 0)
        + String(format: "%.1f ms", withTasks.time * 1e3).padding(toLength: 11, withPad: " ", startingAt: 0)
        + "\(plain.nodes) nodes, " + rate(plain.nodes, plain.time)
        + String(format: ", %.1f ms", plain.time * 1e3) + "  (cycles: \(withTasks.cycles))")
    for owner in holders {
      owner.task?.cancel()
      owner.task = nil
      owner.onTick = nil
    }
    for owner in owners { owner.next = nil }
  }
  exit(0)
}
