import Foundation
import RetainGraphCensus

// `--busy [--local] [--backtraces]`: holder searches beside threads that keep allocating (issue 29, item 7). A global registry
// holds 100 objects; `threads` threads each fill an array with `batch` new objects and store it in the
// registry under its lock, replacing their last one (with `--local`, each keeps its array to itself),
// with the census running; the main thread asks `retainers(of:)` (and then `retainers(isolating:)`) for one
// registry object again and again. Each search's time, the resident memory after it and the peak so
// far are printed: each search should take about as long as the first, whatever the others allocate.

/// The registry the searched object lives in.
final class BusyRegistry: @unchecked Sendable {
  static let shared = BusyRegistry()
  var targets: [BusyItem] = []
  let lock = NSLock()
  var pools: [[BusyItem]] = []
}

final class BusyItem {
  let id: Int
  var payload: [Int]
  init(id: Int) {
    self.id = id
    payload = [id]
  }
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

/// Threads that fill arrays with `batch` new objects and store them in the registry (or keep them,
/// `local`), until stopped; counts the objects made.
final class Allocators: @unchecked Sendable {
  private let lock = NSLock()
  private var stopping = false
  private var made = 0
  private var running = 0

  func start(threads: Int, batch: Int, local: Bool) {
    let registry = BusyRegistry.shared
    registry.pools = Array(repeating: [], count: threads)
    for pool in 0..<threads {
      lock.withLock { running += 1 }
      Thread {
        var items: [BusyItem] = []
        var count = 0
        while true {
          items.append(BusyItem(id: count))
          count += 1
          if items.count == batch {
            if local {
              items.removeAll()
            } else {
              registry.lock.withLock { registry.pools[pool] = items }
              items = []
            }
            let stop = self.lock.withLock {
              self.made += batch
              return self.stopping
            }
            if stop { break }
          }
        }
        registry.lock.withLock { registry.pools[pool] = [] }
        self.lock.withLock { self.running -= 1 }
      }.start()
    }
  }

  var objectsMade: Int { lock.withLock { made } }

  func stop() {
    lock.withLock { stopping = true }
    while lock.withLock({ running }) > 0 { usleep(1000) }
  }
}

func runBusySearches(options: ArraySlice<String>) {
  func value(_ name: String, _ fallback: Int) -> Int {
    options.first { $0.hasPrefix("--\(name)=") }.flatMap { Int($0.dropFirst(name.count + 3)) } ?? fallback
  }
  let threads = value("threads", 3)
  let searches = value("searches", 5)
  let isolated = value("isolated", 5)
  let batch = value("batch", 1_000)
  // `--backtraces`: each allocation's call stack is recorded too (as the census's own tests do).
  HeapCensus.start(recordingBacktraces: options.contains("--backtraces"))
  BusyRegistry.shared.targets = (0..<100).map { BusyItem(id: $0) }
  let target = BusyRegistry.shared.targets[50]
  let allocators = Allocators()
  let local = options.contains("--local")
  allocators.start(threads: threads, batch: batch, local: local)
  say(
    "\(threads) threads each making \(batch) objects at a time"
      + (local ? ", kept to themselves" : ", stored in the registry") + "; census running")
  func line(_ kind: String, _ index: Int, _ time: Double, _ path: String?) {
    let memory = residentMemory()
    say(
      String(
        format: "  %@ %2d: %7.3f s, resident %5.0f MB (peak %5.0f MB), %@ objects made so far", kind, index,
        time, Double(memory.current) / 1e6, Double(memory.peak) / 1e6, "\(allocators.objectsMade)")
        + (path == "BusyRegistry.shared.targets[50]" ? "" : "  WRONG: \(path ?? "nil")"))
  }
  for index in stride(from: 1, through: searches, by: 1) {
    var report: RetainerReport?
    let time = seconds { report = HeapCensus.retainers(of: target) }
    line("retainers(of:)       ", index, time, report?.holderPath)
  }
  for index in stride(from: 1, through: isolated, by: 1) {
    var path: String?
    let time = seconds {
      do {
        path = try HeapCensus.retainers(isolating: target, timeout: .seconds(120)).holderPath
      } catch {
        path = "\(error)"
      }
    }
    line("retainers(isolating:)", index, time, path)
  }
  allocators.stop()
  HeapCensus.stop()
}

/// Writes a line at once (a run stopped by a timeout keeps what it printed; `print` buffers a pipe).
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
