import Foundation
import RetainGraphCensus

// `--dump-at-scale [--objects=N] [--grown=N] [--pairs=N]`: a census dump of a service of 10,000
// objects with leaks present (issue 39, item 3). A global registry holds the service's objects of
// twelve types; a first dump is the baseline; then every type grows (as a server's caches do between
// two dumps) and leaked pairs are left behind; the second dump, with the default time budget
// (`HeapCensus.dumpTimeBudget`, 2 s), is timed, and its grown types with and without a holder are
// counted. Goal: written within 2 s with every grown type's holder.
//
// `--sweeps [--table=N] [--scope=N] [--rounds=N]`: what a census stop costs in a long-lived process
// (issue 39, item 4). `table` live objects (1,000,000 unless said) are recorded and kept; then each
// round starts the census, allocates `scope` objects (100; half kept), and stops it: the stop is
// timed. Beside it, in the same run, a whole-table sweep (what every last stop did before: timed as
// a query that sweeps the table and then reads nothing). Both figures and the table's size are
// printed.

/// The service's objects, by kind: one class per kind (a tag), all held by the registry.
final class ServiceObject<Kind> {
  var payload = 0
}
enum ServiceSession {}
enum ServiceRequest {}
enum ServiceResponse {}
enum ServiceConnection {}
enum ServiceCacheEntry {}
enum ServiceHandler {}
enum ServiceTimer {}
enum ServiceSubscription {}
enum ServiceToken {}
enum ServiceBuffer {}
enum ServiceMetric {}
enum ServiceLogRecord {}

/// The service's global registry.
final class ServiceRegistry: @unchecked Sendable {
  static let shared = ServiceRegistry()
  var objects: [AnyObject] = []
}

/// Leaked in pairs by the service (a session and its delegate that hold each other).
final class ServiceLeakedSession {
  var delegate: ServiceLeakedDelegate?
}
final class ServiceLeakedDelegate {
  var session: ServiceLeakedSession?
}

/// One maker per kind of service object.
let serviceKinds: [@Sendable () -> AnyObject] = [
  { ServiceObject<ServiceSession>() }, { ServiceObject<ServiceRequest>() },
  { ServiceObject<ServiceResponse>() }, { ServiceObject<ServiceConnection>() },
  { ServiceObject<ServiceCacheEntry>() }, { ServiceObject<ServiceHandler>() },
  { ServiceObject<ServiceTimer>() }, { ServiceObject<ServiceSubscription>() },
  { ServiceObject<ServiceToken>() }, { ServiceObject<ServiceBuffer>() },
  { ServiceObject<ServiceMetric>() }, { ServiceObject<ServiceLogRecord>() },
]

private func value(_ options: some Sequence<String>, _ name: String, _ fallback: Int) -> Int {
  options.first { $0.hasPrefix("--\(name)=") }.flatMap { Int($0.dropFirst(name.count + 3)) } ?? fallback
}

func runDumpAtScale(options: some Sequence<String>) {
  let objects = value(options, "objects", 10_000)
  let grown = value(options, "grown", 2_000)
  let pairs = value(options, "pairs", 100)
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "census-dump-bench-\(getpid())")
  try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: directory) }
  HeapCensus.start()
  let registry = ServiceRegistry.shared
  let base = objects - grown - 2 * pairs
  for index in 0..<base { registry.objects.append(serviceKinds[index % serviceKinds.count]()) }
  print(
    "dump at scale: \(objects) objects (\(base) before the first dump), budget \(HeapCensus.dumpTimeBudget)")
  let first = directory.appendingPathComponent("first.json")
  let firstSeconds = seconds {
    do { try HeapCensus.writeDump(to: first.path) } catch { print("  the first dump failed: \(error)") }
  }
  print(String(format: "  first dump (the baseline): %.2f s", firstSeconds))
  // Between the dumps: every kind grows, the first kinds most, and sessions leak in pairs.
  for index in 0..<grown {
    let kind = Int((Double(index) / Double(grown)).squareRoot() * Double(serviceKinds.count))
    registry.objects.append(serviceKinds[min(kind, serviceKinds.count - 1)]())
  }
  for _ in 0..<pairs {
    let session = ServiceLeakedSession()
    session.delegate = ServiceLeakedDelegate()
    session.delegate?.session = session
  }
  let second = directory.appendingPathComponent("second.json")
  let secondSeconds = seconds {
    do { try HeapCensus.writeDump(to: second.path) } catch { print("  the second dump failed: \(error)") }
  }
  HeapCensus.stop()
  guard let data = try? Data(contentsOf: second),
    let dump = try? JSONDecoder().decode(CensusDump.self, from: data)
  else {
    print("  the second dump could not be read")
    return
  }
  let held = dump.growth.filter { $0.holderPath != nil }.count
  let skipped = Dictionary(grouping: dump.growth.compactMap(\.skipped), by: \.self).mapValues(\.count)
  let service = dump.growth.filter {
    $0.typeName.contains("ServiceObject<") || $0.typeName.contains("ServiceLeaked")
  }
  let serviceHeld = service.filter { $0.holderPath != nil }.count
  print(
    String(
      format: "  second dump: %.2f s (goal: within 2 s), %d live objects, %d leaked shape(s)", secondSeconds,
      dump.liveObjects, dump.leaks.leaks.count))
  print(
    "  grown types: \(dump.growth.count), with a holder: \(held); skipped: "
      + (skipped.isEmpty
        ? "none" : skipped.map { "\($0.value) \($0.key.rawValue)" }.sorted().joined(separator: ", ")))
  print("  the service's grown types: \(service.count), with a holder: \(serviceHeld) (goal: every one)")
  for growth in dump.growth where growth.holderPath == nil && growth.skipped == nil {
    let first = growth.retainers?.description.split(separator: "\n").first.map(String.init) ?? "no report"
    print("  searched, no holder path: \(growth.typeName) (\(first))")
  }
  for note in dump.notes { print("  note: \(note)") }
  withExtendedLifetime(registry) {}
}

/// Kept by the sweep benchmark.
final class SweepTableEntry {
  var value = 0
}
/// Allocated in each round's scope.
final class SweepScopeObject {
  var value = 0
}
/// Never allocated: the whole-table sweep's query counts it.
final class SweepNeverAllocated {}

func runSweeps(options: some Sequence<String>) {
  let table = value(options, "table", 1_000_000)
  let scope = value(options, "scope", 100)
  let rounds = value(options, "rounds", 200)
  HeapCensus.start()
  var kept: [SweepTableEntry] = []
  kept.reserveCapacity(table)
  for _ in 0..<table { kept.append(SweepTableEntry()) }
  HeapCensus.stop()
  let recorded = HeapCensus.liveCounts().reduce(0) { $0 + $1.count }
  print(
    "sweeps: a table of \(recorded) live records (\(table) kept), scopes of \(scope) allocations (half kept)")
  var scopeKept: [SweepScopeObject] = []
  var stops: [Double] = []
  for _ in 0..<rounds {
    HeapCensus.start()
    for index in 0..<scope {
      let object = SweepScopeObject()
      if index % 2 == 0 { scopeKept.append(object) }
    }
    stops.append(seconds { HeapCensus.stop() })
  }
  var whole: [Double] = []
  for _ in 0..<max(5, rounds / 20) {
    let mark = HeapCensus.mark()
    whole.append(seconds { _ = HeapCensus.liveCount(of: SweepNeverAllocated.self, since: mark) })
  }
  func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
  let stop = median(stops)
  let sweep = median(whole)
  print(
    String(
      format: "  per stop, now (median of %d): %.4f ms (mean %.4f ms, max %.4f ms)", rounds, stop * 1e3,
      stops.reduce(0, +) / Double(stops.count) * 1e3, (stops.max() ?? 0) * 1e3))
  print(
    String(
      format:
        "  a whole-table sweep, what every stop did before (median of %d): %.3f ms (%.0f times a stop now)",
      whole.count, sweep * 1e3, sweep / stop))
  withExtendedLifetime((kept, scopeKept)) {}
}
