import Foundation
import RetainGraphCensus

// `--leaks-at-scale [--objects=N] [--pairs=N]`: the heap-wide pass at real size against its anchor
// (issue 39, item 2). A global array holds `objects - 2 × pairs` live entries and `pairs` garbage
// pairs (two objects that hold each other and nothing else) are left behind; `HeapCensus.leaks()`
// (forked) and `leaksInThisProcess()` are timed, and CPython's `gc.collect()` on the same shape
// (the same numbers of live objects and of garbage pairs, in `python3`) is timed in the same run.
// Both figures and their ratio are printed.

/// What the scale benchmark keeps alive.
final class ScaleCache: @unchecked Sendable {
  static let shared = ScaleCache()
  var entries: [ScaleEntry] = []
}

final class ScaleEntry {
  let id: Int
  var next: ScaleEntry?
  init(id: Int) { self.id = id }
}

/// Leaked in pairs.
final class ScaleLeakedPair {
  var other: ScaleLeakedPair?
}

/// CPython's `gc.collect()` on `live` live objects in a list and `pairs` garbage pairs: (seconds,
/// objects collected), or nil when python3 could not run.
func cpythonCollect(live: Int, pairs: Int) -> (seconds: Double, collected: Int)? {
  let script = """
    import gc, time
    class Entry:
        __slots__ = ('id', 'next')
        def __init__(self, i):
            self.id = i
            self.next = None
    class Pair:
        __slots__ = ('other',)
    gc.disable()
    gc.collect()
    live = [Entry(i) for i in range(\(live))]
    for _ in range(\(pairs)):
        a = Pair(); b = Pair(); a.other = b; b.other = a
    del a, b
    best = None
    start = time.perf_counter()
    collected = gc.collect()
    took = time.perf_counter() - start
    print(took, collected)
    """
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = ["python3", "-c", script]
  let output = Pipe()
  process.standardOutput = output
  do { try process.run() } catch { return nil }
  let data = output.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  let fields = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace)
  guard process.terminationStatus == 0, fields.count == 2, let seconds = Double(fields[0]),
    let collected = Int(fields[1])
  else { return nil }
  return (seconds, collected)
}

func runLeaksAtScale(options: some Sequence<String>) {
  func value(_ name: String, _ fallback: Int) -> Int {
    options.first { $0.hasPrefix("--\(name)=") }.flatMap { Int($0.dropFirst(name.count + 3)) } ?? fallback
  }
  let objects = value("objects", 1_000_000)
  let pairs = value("pairs", 100_000)
  let live = objects - 2 * pairs
  precondition(live >= 0, "--pairs=\(pairs) needs at least \(2 * pairs) objects")
  HeapCensus.start()
  var entries: [ScaleEntry] = []
  entries.reserveCapacity(live)
  for id in 0..<live { entries.append(ScaleEntry(id: id)) }
  ScaleCache.shared.entries = entries
  entries = []
  for _ in 0..<pairs {
    let first = ScaleLeakedPair()
    let second = ScaleLeakedPair()
    first.other = second
    second.other = first
  }
  print("\(objects) objects: \(live) live in an array, \(pairs) leaked pairs")
  for round in 1...2 {
    var report: LeakReport?
    var failure: LeakCountError?
    let forkedTime = seconds {
      do throws(LeakCountError) { report = try HeapCensus.leaks(timeout: .seconds(600)) } catch {
        failure = error
      }
    }
    if let failure {
      print("  leaks() failed: \(failure)")
      exit(1)
    }
    let shapes = report?.leaks ?? []
    let pairShapes = shapes.filter { $0.cycleTypes == ["ScaleLeakedPair"] }
    print(
      "  leaks() round \(round): \(String(format: "%.3f", forkedTime)) s forked; \(shapes.count) shape(s), "
        + "ScaleLeakedPair × \(pairShapes.reduce(0) { $0 + $1.count })")
  }
  var inProcess: LeakReport?
  let inProcessTime = seconds { inProcess = HeapCensus.leaksInThisProcess() }
  print(
    "  leaksInThisProcess(): \(String(format: "%.3f", inProcessTime)) s; "
      + "\(inProcess?.leaks.count ?? 0) shape(s)")
  HeapCensus.stop()
  if let python = cpythonCollect(live: live, pairs: pairs) {
    print(
      "  CPython gc.collect() on the same shape: \(String(format: "%.3f", python.seconds)) s "
        + "(\(python.collected) objects collected)")
  } else {
    print("  CPython: python3 could not run")
  }
}
