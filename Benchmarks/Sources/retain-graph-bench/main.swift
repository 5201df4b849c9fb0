import AllocationCost
import Foundation
import RetainGraph

// For each shape and size: objects per second for RetainGraph (walk + cycles), the naive Mirror walk
// and the typed traversal, measured in the same run (the best of five runs for RetainGraph and the
// typed traversal, one run for the slow Mirror walk); and RetainGraph's peak memory beyond the objects
// (measured in a fresh process per row).

func seconds(_ body: () -> Void) -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// (current, peak) resident set size in bytes, from /proc/self/status.
func residentMemory() -> (current: Int, peak: Int) {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
  func field(_ name: String) -> Int {
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return 0 }
    return (Int(line.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "0") ?? 0) * 1024
  }
  return (field("VmRSS:"), field("VmHWM:"))
}

func rate(_ count: Int, _ time: Double) -> String {
  let perSecond = Double(count) / time
  return perSecond >= 1e6
    ? String(format: "%.2fM/s", perSecond / 1e6) : String(format: "%.0fk/s", perSecond / 1e3)
}

/// What a memory measurement does with the graph once it is walked.
enum GraphUse: String {
  /// Nothing: the walk and its cycles.
  case walk
  /// The walk, then a caller reads every node through `graph.nodes` (counting the objects).
  case nodes
  /// The walk, then a caller reads every node and every edge through `graph.nodes` and `graph.edges`.
  case nodesAndEdges = "edges"
}

/// Measured in a fresh process, so that the peak is not hidden by memory freed earlier: builds the
/// shape, then walks it (and reads it, as `use` says), and prints the peak resident memory the walk
/// added, in bytes per object.
func measureMemoryInThisProcess(shape: Shape, size: Int, use: GraphUse) -> Never {
  let built = shape.build(count: size)
  _ = ObjectGraph(reflecting: shape.build(count: 10).root)
  let before = residentMemory().current
  let graph = ObjectGraph(reflecting: built.root, options: GraphOptions(maxNodes: 10_000_000))
  var objects = 0
  var strong = 0
  if use != .walk {
    for node in graph.nodes where node.kind == .object { objects += 1 }
    precondition(objects > 0)
  }
  if use == .nodesAndEdges {
    for edge in graph.edges where edge.ownership == .strong { strong += 1 }
    precondition(strong > 0)
  }
  let peak = residentMemory().peak
  precondition(graph.nodeCount == size && !graph.isTruncated)
  print(Double(max(0, peak - before)) / Double(size))
  built.dismantle()
  exit(0)
}

/// Runs this program again for one memory measurement.
func peakBytesPerObject(shape: Shape, size: Int, use: GraphUse = .walk) -> Double? {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
  process.arguments = ["--memory", shape.rawValue, String(size), use.rawValue]
  let pipe = Pipe()
  process.standardOutput = pipe
  guard (try? process.run()) != nil else { return nil }
  let output = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return Double(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
}

if CommandLine.arguments.count == 5, CommandLine.arguments[1] == "--memory",
  let shape = Shape(rawValue: CommandLine.arguments[2]), let size = Int(CommandLine.arguments[3]),
  let use = GraphUse(rawValue: CommandLine.arguments[4])
{
  measureMemoryInThisProcess(shape: shape, size: size, use: use)
}

/// `--reading [SIZE…]`: peak bytes per object for the walk alone, and when a caller then reads
/// `graph.nodes`, and `graph.nodes` and `graph.edges` (each in a fresh process); 1M objects by default.
if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "--reading" {
  let values = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
  print("shape   objects     peak bytes/object: walk   reading nodes   reading nodes and edges")
  for shape in [Shape.tree, .list, .random] {
    for size in values.isEmpty ? [1_000_000] : values {
      let figures = [GraphUse.walk, .nodes, .nodesAndEdges].map { use in
        String(format: "%.0f", peakBytesPerObject(shape: shape, size: size, use: use) ?? .nan)
      }
      print(
        shape.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
          + String(size).padding(toLength: 12, withPad: " ", startingAt: 0)
          + figures[0].padding(toLength: 26, withPad: " ", startingAt: 0)
          + figures[1].padding(toLength: 16, withPad: " ", startingAt: 0) + figures[2])
    }
  }
  exit(0)
}

/// `--walk SHAPE SIZE REPEATS`: only walks, for profiling (`perf record`, callgrind).
if CommandLine.arguments.count == 5, CommandLine.arguments[1] == "--walk",
  let shape = Shape(rawValue: CommandLine.arguments[2]), let size = Int(CommandLine.arguments[3]),
  let repeats = Int(CommandLine.arguments[4])
{
  let built = shape.build(count: size)
  for _ in 0..<repeats {
    let time = seconds {
      let graph = ObjectGraph(reflecting: built.root, options: GraphOptions(maxNodes: 10_000_000))
      precondition(graph.nodeCount == size)
      _ = graph.cycles.count
    }
    print(rate(size, time))
  }
  built.dismantle()
  exit(0)
}

/// `--typed SHAPE SIZE REPEATS`: only the typed traversal, for profiling beside `--walk`.
if CommandLine.arguments.count == 5, CommandLine.arguments[1] == "--typed",
  let shape = Shape(rawValue: CommandLine.arguments[2]), let size = Int(CommandLine.arguments[3]),
  let repeats = Int(CommandLine.arguments[4])
{
  let built = shape.build(count: size)
  for _ in 0..<repeats {
    var count = 0
    let time = seconds { count = built.typedTraversal() }
    precondition(count == size)
    print(rate(size, time))
  }
  built.dismantle()
  exit(0)
}

/// `--fork [SIZE…]`: the cost of walking in a forked child. For each size of the tree shape, the
/// in-process walk (`ObjectGraph(reflecting:)` and its cycles) against `ObjectGraph(snapshotting:)`
/// (fork, walk in the child, transfer, decode and cycles in the parent), best of five each, with the
/// process's resident memory (what fork has to map).
if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "--fork" {
  let forkSizes =
    CommandLine.arguments.count > 2
    ? CommandLine.arguments.dropFirst(2).compactMap { Int($0) } : [10_000, 100_000, 1_000_000]
  print("shape   objects     in-process    snapshotting  overhead   resident memory")
  for size in forkSizes {
    let built = Shape.tree.build(count: size)
    let root = built.root
    let options = GraphOptions(maxNodes: 10_000_000)
    _ = ObjectGraph(reflecting: Shape.tree.build(count: 10).root)
    var inProcess: ObjectGraph?
    let walkTime =
      (0..<5).map { _ in
        seconds {
          let graph = ObjectGraph(reflecting: root, options: options)
          _ = graph.cycles.count
          inProcess = graph
        }
      }.min() ?? .infinity
    var forked: ObjectGraph?
    let forkTime =
      (0..<5).map { _ in
        seconds {
          do {
            let graph = try ObjectGraph(snapshotting: root, options: options, timeout: .seconds(120))
            _ = graph.cycles.count
            forked = graph
          } catch {
            print("snapshot failed: \(error)")
          }
        }
      }.min() ?? .infinity
    precondition(forked?.nodeCount == size && forked?.edgeCount == inProcess?.edgeCount)
    inProcess = nil
    forked = nil
    let resident = residentMemory().current
    print(
      "tree    " + String(size).padding(toLength: 12, withPad: " ", startingAt: 0)
        + String(format: "%.1f ms", walkTime * 1e3).padding(toLength: 14, withPad: " ", startingAt: 0)
        + String(format: "%.1f ms", forkTime * 1e3).padding(toLength: 14, withPad: " ", startingAt: 0)
        + String(format: "%.2fx", forkTime / walkTime).padding(toLength: 11, withPad: " ", startingAt: 0)
        + String(format: "%.0f MB", Double(resident) / 1e6))
    built.dismantle()
  }
  exit(0)
}

/// `--storm [COUNT] [MUTATORS]`: snapshots beside mutating threads (Storm.swift); 1,000 beside 2 by default.
if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "--storm" {
  let values = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
  runStorm(count: values.first ?? 1_000, mutatorCount: values.dropFirst().first ?? 2)
}

/// `--snapshots [SIZE]`, `--check CLI [BASELINE] [SIZE]`: reading JSON snapshots (Snapshots.swift).
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--write-ring",
  let size = Int(CommandLine.arguments[2])
{
  writeRingInThisProcess(size: size, path: CommandLine.arguments[3])
}
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--read-memory" {
  measureReadMemoryInThisProcess(path: CommandLine.arguments[2])
}
if CommandLine.arguments.count >= 2, ["--snapshots", "--check"].contains(CommandLine.arguments[1]) {
  do {
    let rest = Array(CommandLine.arguments.dropFirst(2))
    if CommandLine.arguments[1] == "--check" { try runCheckCommand(rest) }
    try runSnapshotReading(size: rest.compactMap { Int($0) }.first ?? 1_000_000)
  } catch {
    print("error: \(error)")
    exit(2)
  }
}

/// `--tasks [SIZE…]`: a list whose every tenth object stores a suspended task capturing it (Tasks.swift).
if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "--tasks" {
  let values = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
  runTaskBenchmark(sizes: values.isEmpty ? [1_000, 10_000] : values)
}

/// `--allocations`: the cost of one allocation in a program that does not link the heap census
/// (compare with `retain-graph-census-bench`).
if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "--allocations" {
  print(
    String(
      format: "census not linked: %.1f ns per allocation (allocate + free)",
      nanosecondsPerAllocation(count: 10_000_000)))
  exit(0)
}

let arguments = CommandLine.arguments.dropFirst()
let sizes = arguments.isEmpty ? [10_000, 100_000, 1_000_000] : arguments.compactMap { Int($0) }
let mirrorLimit = 100_000  // the naive walk is too slow beyond this; its rate is measured up to here

print("shape   objects     RetainGraph   naive Mirror  typed         RG/Mirror  typed/RG  peak bytes/object")
for shape in Shape.allCases {
  for size in sizes {
    let built = shape.build(count: size)
    let root = built.root
    var graph: ObjectGraph?
    var cycleCount = 0
    // Warm the type plan cache once (a real test suite reuses it too).
    _ = ObjectGraph(reflecting: shape.build(count: 10).root)
    // Best of five runs for the fast walkers, so that a busy moment of the machine does not count.
    let rgTime =
      (0..<5).map { _ in
        seconds {
          let built = ObjectGraph(reflecting: root, options: GraphOptions(maxNodes: 10_000_000))
          cycleCount = built.cycles.count
          graph = built
        }
      }.min() ?? .infinity
    let nodes = graph?.nodeCount ?? 0
    graph = nil
    var typedCount = 0
    let typedTime = (0..<5).map { _ in seconds { typedCount = built.typedTraversal() } }.min() ?? .infinity
    let mirrorText: String
    var ratio = "-"
    if size <= mirrorLimit {
      var mirrorCount = 0
      let mirrorTime = seconds { mirrorCount = naiveMirrorWalk(root) }
      mirrorText = rate(mirrorCount, mirrorTime)
      ratio = String(format: "%.0fx", (Double(nodes) / rgTime) / (Double(mirrorCount) / mirrorTime))
    } else {
      mirrorText = "(skipped)"
    }
    precondition(nodes == size && typedCount == size, "walk found \(nodes) of \(size) objects")
    let bytesPerObject = peakBytesPerObject(shape: shape, size: size) ?? .nan
    print(
      shape.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
        + String(size).padding(toLength: 12, withPad: " ", startingAt: 0)
        + rate(nodes, rgTime).padding(toLength: 14, withPad: " ", startingAt: 0)
        + mirrorText.padding(toLength: 14, withPad: " ", startingAt: 0)
        + rate(typedCount, typedTime).padding(toLength: 14, withPad: " ", startingAt: 0)
        + ratio.padding(toLength: 11, withPad: " ", startingAt: 0)
        + String(format: "%.1fx", (Double(typedCount) / typedTime) / (Double(nodes) / rgTime))
        .padding(toLength: 10, withPad: " ", startingAt: 0)
        + String(format: "%.0f", bytesPerObject) + "  (cycles: \(cycleCount))")
    built.dismantle()
  }
}
