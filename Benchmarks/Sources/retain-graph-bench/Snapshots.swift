import Foundation
import RetainGraph

#if canImport(Glibc)
  import Glibc
#endif

// Reading JSON snapshots (issue 20.9): `ObjectGraph(jsonData:)` on the walked shapes and on a ring, and
// `retain-graph check` on a ring, with the process's peak memory.

/// A ring of `count` objects held by a root, as a snapshot: the command line's worst case (one loop
/// through every object).
func ringSnapshot(count: Int) throws -> Data {
  let nodes =
    [Node(id: 0, typeName: "App.Root", kind: .object)]
    + (1..<count).map { Node(id: $0, typeName: "App.RingNode", kind: .object) }
  let edges =
    [Edge(from: 0, to: 1, label: "first", ownership: .strong, kind: .property, property: "first")]
    + (1..<count).map {
      Edge(
        from: $0, to: $0 % (count - 1) + 1, label: "next", ownership: .strong, kind: .property,
        property: "next")
    }
  return try ObjectGraph(nodes: nodes, edges: edges).jsonData()
}

/// The snapshot of a walked benchmark shape.
func shapeSnapshot(_ shape: Shape, count: Int) -> Data {
  let built = shape.build(count: count)
  defer { built.dismantle() }
  return ObjectGraph(reflecting: built.root, options: GraphOptions(maxNodes: 10_000_000)).jsonData()
}

func temporaryFile(_ name: String, _ data: Data) throws -> String {
  let path = NSTemporaryDirectory() + "retain-graph-bench-\(getpid())-\(name).json"
  try data.write(to: URL(fileURLWithPath: path))
  return path
}

/// `--write-ring SIZE FILE`: writes a ring snapshot (in a child process, see ``runCheckCommand(_:)``).
func writeRingInThisProcess(size: Int, path: String) -> Never {
  guard let data = try? ringSnapshot(count: size), (try? data.write(to: URL(fileURLWithPath: path))) != nil
  else { exit(2) }
  exit(0)
}

/// `--read-memory FILE`: in a fresh process, the memory `ObjectGraph(jsonData:)` adds beyond the
/// file's bytes at its peak, in bytes.
func measureReadMemoryInThisProcess(path: String) -> Never {
  guard let data = FileManager.default.contents(atPath: path) else { exit(2) }
  let before = residentMemory().current
  let graph = try? ObjectGraph(jsonData: data)
  let peak = residentMemory().peak
  precondition(graph != nil)
  print(max(0, peak - before))
  exit(0)
}

/// Runs `executable` with `arguments`, standard output to /dev/null: wall time, peak resident memory
/// (the kernel's maximum resident set size of the child) and exit status.
func runMeasured(_ executable: String, _ arguments: [String]) -> (seconds: Double, peak: Int, status: Int32)?
{
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
  let argv = ([executable] + arguments).map { strdup($0) } + [nil]
  defer { for argument in argv { free(argument) } }
  var pid: pid_t = 0
  let start = DispatchTime.now().uptimeNanoseconds
  guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else { return nil }
  var status: Int32 = 0
  var usage = rusage()
  guard wait4(pid, &status, 0, &usage) == pid else { return nil }
  let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
  return (seconds, usage.ru_maxrss * 1024, (status >> 8) & 0xFF)
}

func megabytes(_ bytes: Int) -> String { String(format: "%.0f MB", Double(bytes) / 1e6) }

/// `--snapshots [SIZE]`: for a ring and the tree, list and random shapes of SIZE objects (1M by
/// default), the snapshot's size, `ObjectGraph(jsonData:)`'s time (best of three) and the memory it
/// adds beyond the file's bytes at its peak (in a fresh process).
func runSnapshotReading(size: Int) throws -> Never {
  print("ObjectGraph(jsonData:) at \(size) objects: best of 3; added memory measured in a fresh process")
  print("shape   objects     edges       file        read        rate        added memory (bytes/object)")
  let shapes: [(String, () throws -> Data)] =
    [("ring", { try ringSnapshot(count: size) })]
    + [Shape.tree, .list, .random].map { shape in (shape.rawValue, { shapeSnapshot(shape, count: size) }) }
  for (name, make) in shapes {
    let data = try make()
    var graph: ObjectGraph?
    let time =
      (0..<3).map { _ in
        seconds { graph = try? ObjectGraph(jsonData: data) }
      }.min() ?? .infinity
    guard let read = graph else {
      print("\(name): the snapshot does not read")
      continue
    }
    let (nodes, edges) = (read.nodeCount, read.edgeCount)
    graph = nil
    let path = try temporaryFile(name, data)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let added = Int(measureInChild(["--read-memory", path]) ?? "") ?? -1
    print(
      name.padding(toLength: 8, withPad: " ", startingAt: 0)
        + String(nodes).padding(toLength: 12, withPad: " ", startingAt: 0)
        + String(edges).padding(toLength: 12, withPad: " ", startingAt: 0)
        + megabytes(data.count).padding(toLength: 12, withPad: " ", startingAt: 0)
        + String(format: "%.2f s", time).padding(toLength: 12, withPad: " ", startingAt: 0)
        + rate(nodes, time).padding(toLength: 12, withPad: " ", startingAt: 0)
        + "\(megabytes(added)) (\(added / max(1, nodes)))")
  }
  exit(0)
}

/// Runs this program again with `arguments`; its standard output, trimmed.
func measureInChild(_ arguments: [String]) -> String? {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
  process.arguments = arguments
  let pipe = Pipe()
  process.standardOutput = pipe
  guard (try? process.run()) != nil else { return nil }
  let output = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// `--check CLI [BASELINE] [SIZE]`: `retain-graph check` (the executable CLI, e.g.
/// `.build/release/retain-graph`) on a ring snapshot of SIZE objects (1M by default): wall time and
/// the process's peak resident memory, best of three, alternating with BASELINE (another build of
/// the command, e.g. one from before a change) when given; a run over 20 s is not repeated.
func runCheckCommand(_ arguments: [String]) throws -> Never {
  let size = arguments.compactMap { Int($0) }.first ?? 1_000_000
  let executables = arguments.filter { Int($0) == nil }
  guard !executables.isEmpty else {
    print("usage: retain-graph-bench --check PATH-TO-retain-graph [BASELINE-retain-graph] [SIZE]")
    exit(2)
  }
  // Written by a child process: the kernel counts the memory of the process that starts a command in
  // the command's peak (at exec), so this one stays small.
  let path = NSTemporaryDirectory() + "retain-graph-bench-\(getpid())-ring.json"
  guard measureInChild(["--write-ring", String(size), path]) != nil,
    let fileSize = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
  else {
    print("the ring snapshot cannot be written")
    exit(2)
  }
  defer { try? FileManager.default.removeItem(atPath: path) }
  print("retain-graph check on a \(size)-object ring snapshot (\(megabytes(fileSize))), best of 3")
  var best = [(seconds: Double, peak: Int, status: Int32)?](repeating: nil, count: executables.count)
  for _ in 0..<3 {
    for (index, executable) in executables.enumerated() {
      if let previous = best[index], previous.seconds > 20 { continue }
      guard let run = runMeasured(executable, ["check", path]) else {
        print("\(executable): cannot be run")
        exit(2)
      }
      if best[index].map({ run.seconds < $0.seconds }) ?? true { best[index] = run }
    }
  }
  for (index, executable) in executables.enumerated() {
    guard let run = best[index] else { continue }
    print(
      (index == 0 ? "this build " : "baseline   ")
        + String(format: "%7.2f s", run.seconds) + "   "
        + megabytes(run.peak).padding(toLength: 9, withPad: " ", startingAt: 0)
        + " peak RSS   exit \(run.status)   \(executable)")
  }
  exit(0)
}
