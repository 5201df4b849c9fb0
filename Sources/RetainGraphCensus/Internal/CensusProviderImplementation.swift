internal import CRetainGraphCensus
internal import Foundation
internal import RetainGraph

/// The census as the testing assertions see it, through ``CensusRegistration``.
final class CensusProviderImplementation: CensusProvider, @unchecked Sendable {
  static let shared = CensusProviderImplementation()
  private static let registration: Void = CensusRegistration.register(shared)

  static func registerOnce() { _ = registration }

  /// Census checks take turns (recursive: a scenario may run a census check itself).
  private let checks = NSRecursiveLock()

  var isRunning: Bool { HeapCensus.isRunning }

  func mark() -> UInt64 { CensusTable.nextSequence }

  func liveCounts(allocatedIn windows: [Range<UInt64>]) -> [String: (count: Int, newest: AnyObject?)] {
    CensusTable.unrecorded { counts(allocatedIn: windows) }
  }

  private func counts(allocatedIn windows: [Range<UInt64>]) -> [String: (count: Int, newest: AnyObject?)] {
    guard let first = windows.first?.lowerBound, let last = windows.last?.upperBound else { return [:] }
    var counts: [UnsafeRawPointer: (count: Int, newest: UnsafeRawPointer)] = [:]
    var newest: [UnsafeRawPointer: AnyObject] = [:]
    CensusTable.withLiveRecords(since: first, before: last) { records in
      for record in records where windows.contains(where: { $0.contains(record.sequence) }) {
        guard let metadata = CensusRuntime.metadata(ofObjectAt: record.object) else { continue }
        counts[metadata, default: (0, record.object)].count += 1
        counts[metadata]?.newest = record.object
      }
      for (metadata, entry) in counts where CensusRuntime.isClass(metadata: metadata) {
        newest[metadata] = CensusRuntime.object(at: entry.newest)
      }
    }
    var result: [String: (count: Int, newest: AnyObject?)] = [:]
    for (metadata, entry) in counts {
      let name = CensusRuntime.typeName(metadata: metadata)
      result[name, default: (0, nil)].count += entry.count
      if let object = newest[metadata] { result[name]?.newest = object }
    }
    return result
  }

  func liveObjects<T>(of type: T.Type) -> [AnyObject] {
    HeapCensus.liveObjects(of: type).map { $0 as AnyObject }
  }

  func retainerLines(of object: AnyObject) -> [String] {
    let report = HeapCensus.retainers(of: object)
    var lines = report.holderPath.map { [$0] } ?? []
    if let frames = report.allocationBacktrace, let first = frames.first {
      lines.append("allocated in \(([first] + frames.dropFirst().prefix(3)).joined(separator: " ← "))")
    }
    return lines
  }

  func exclusively<R>(_ body: () throws -> R) rethrows -> R {
    checks.lock()
    defer { checks.unlock() }
    return try body()
  }
}
