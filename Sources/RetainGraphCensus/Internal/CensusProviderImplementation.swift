internal import CRetainGraphCensus
internal import Foundation
internal import RetainGraph
internal import RetainGraphProcess
internal import RetainGraphRuntime
internal import Synchronization

/// The census as the testing assertions and traits see it, through ``CensusRegistration``.
final class CensusProviderImplementation: CensusProvider, @unchecked Sendable {
  static let shared = CensusProviderImplementation()
  private static let registration: Void = CensusRegistration.register(shared)

  static func registerOnce() { _ = registration }

  var isRunning: Bool { HeapCensus.isRunning }

  var hasStarted: Bool { rgc_has_started() != 0 }

  nonisolated(nonsending) func run(recordingBacktraces: Bool, _ body: () async throws -> Void) async rethrows
  {
    try await HeapCensus.run(recordingBacktraces: recordingBacktraces) { try await body() }
  }

  func mark() -> UInt64 { CensusTable.nextSequence }

  func withDispatchSourceHandlers(
    of source: UnsafeRawPointer, _ body: ([(block: UnsafeRawPointer, role: String)]) -> Void
  ) {
    // A source has at most three handlers (event, cancel, registration).
    var blocks = [UnsafeRawPointer?](repeating: nil, count: 3)
    var kinds = [Int32](repeating: 0, count: 3)
    let count = blocks.withUnsafeMutableBufferPointer { blocks in
      kinds.withUnsafeMutableBufferPointer { kinds in
        guard let blocks = blocks.baseAddress, let kinds = kinds.baseAddress else { return 0 }
        return rgc_source_handlers(source, blocks, kinds, 3)
      }
    }
    var handlers: [(block: UnsafeRawPointer, role: String)] = []
    for index in 0..<count {
      guard let block = blocks[index] else { continue }
      handlers.append((block, QueuedHolders.sourceHandlerRole(kinds[index]) ?? "event handler"))
    }
    defer { for handler in handlers { rgc_release_handler(handler.block) } }
    body(handlers)
  }

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
      for (metadata, entry) in counts
      where CensusRuntime.isClass(metadata: metadata) || CensusRuntime.isClosureContext(metadata: metadata) {
        newest[metadata] = CensusRuntime.object(at: entry.newest)
      }
    }
    var result: [String: (count: Int, newest: AnyObject?)] = [:]
    for (metadata, entry) in counts {
      // Each closure's contexts have metadata of their own: counted apart, so that a growing
      // closure is told from the others (its function is named once it fails).
      let name =
        CensusRuntime.isClosureContext(metadata: metadata)
        ? "\(Self.closureContextPrefix)\(UInt(bitPattern: metadata)))"
        : CensusNames.typeName(metadata: metadata)
      result[name, default: (0, nil)].count += entry.count
      if let object = newest[metadata] { result[name]?.newest = object }
    }
    return result
  }

  func liveObjects<T>(of type: T.Type) -> [AnyObject] {
    HeapCensus.liveObjects(of: type).map { $0 as AnyObject }
  }

  /// How ``liveCounts(allocatedIn:)`` names closure contexts: this, their metadata's address, `)`.
  static let closureContextPrefix = CensusRegistration.closureContextPrefix

  /// What the forked holder search does instead of searching: tests reach its failure paths with it.
  private let searchFault = Mutex<ObjectGraph.ForkedChildFault?>(nil)
  /// How long the forked holder search of a failure message may take by default: it reads every
  /// live object, and under load (a parallel suite beside builds) one took over 10 s in CI.
  static let defaultSearchTimeout: Duration = .seconds(30)
  /// How long the forked holder search may take.
  private let searchTimeout = Mutex<Duration>(defaultSearchTimeout)

  /// Runs `body` with the holder search of failure messages made to fail as `fault` says, within
  /// `timeout` (tests only).
  func withSearchFault<R>(
    _ fault: ObjectGraph.ForkedChildFault?, timeout: Duration = defaultSearchTimeout, _ body: () throws -> R
  ) rethrows -> R {
    searchFault.withLock { $0 = fault }
    searchTimeout.withLock { $0 = timeout }
    defer {
      searchFault.withLock { $0 = nil }
      searchTimeout.withLock { $0 = Self.defaultSearchTimeout }
    }
    return try body()
  }

  /// The holder search of failure messages runs in a forked child: it reads every live object's
  /// fields, which a crash (an object another thread is changing, a layout the walk misreads) or a
  /// hang would turn into the end of the whole test run. A failed search becomes a sentence.
  func holders(of object: AnyObject) -> CensusHolderSearch {
    let fault = searchFault.withLock { $0 }
    let timeout = searchTimeout.withLock { $0 }
    do {
      let report = try HeapCensus.retainers(isolating: object, timeout: timeout, childFault: fault)
      return Self.search(from: report)
    } catch {
      return CensusHolderSearch(failure: Self.sentence(for: error))
    }
  }

  /// Why the isolated holder search gave no answer, as a clause of a failure message.
  static func sentence(for error: ForkedWalkError) -> String {
    switch error {
    case .childCrashed(let signal, _, let progress):
      let name = strsignal(signal).map { String(cString: $0) } ?? "signal \(signal)"
      return "the holder search crashed (its forked child was killed by signal \(signal), \(name)"
        + (progress.map { ", while \($0)" } ?? "") + "); the test run goes on"
    case .timedOut(let timeout, _, let progress?):
      return "the holder search did not finish within \(timeout) and was stopped (its forked child was "
        + "still working: \(progress))"
    case .timedOut(let timeout, _, nil):
      return "the holder search did not finish within \(timeout) (its forked child may have blocked on a "
        + "lock another thread held at the fork) and was stopped"
    case .childExited(let status):
      return "the holder search failed (its forked child exited with status \(status))"
    case .malformedData(let what):
      return "the holder search failed (its answer could not be read: \(what))"
    case .systemCallFailed(let call, let code):
      return "the holder search could not run (\(call) failed, errno \(code))"
    }
  }

  /// Census checks take turns (a scenario may run a census check itself: it shares its turn).
  func exclusively<R>(_ body: () throws -> R) rethrows -> R {
    try CensusCheckTurns.shared.exclusively(body)
  }

  nonisolated(nonsending) func searchHolders(of object: AnyObject) async -> CensusHolderSearch {
    let fault = searchFault.withLock { $0 }
    let timeout = searchTimeout.withLock { $0 }
    do {
      let report = try await HeapCensus.searchRetainers(
        isolating: object, timeout: timeout, childFault: fault)
      return Self.search(from: report)
    } catch let error as ForkedWalkError {
      return CensusHolderSearch(failure: Self.sentence(for: error))
    } catch {
      return CensusHolderSearch(failure: "the holder search was cancelled")
    }
  }

  /// A failure message's holder search, from the retainer report.
  private static func search(from report: RetainerReport) -> CensusHolderSearch {
    var search = CensusHolderSearch(holderPath: report.holderPath)
    search.targetName = report.typeName
    if let frames = report.allocationBacktrace, let first = frames.first {
      search.allocation = "allocated in \(([first] + frames.dropFirst().prefix(3)).joined(separator: " ← "))"
    }
    return search
  }
}

extension CensusProviderImplementation {
  func inNewLeakScope<R>(_ body: () throws -> R) rethrows -> (result: R, scope: UInt32) {
    let scope = LeakScope()
    return (try scope.run(body), scope.id)
  }

  nonisolated(nonsending) func inNewLeakScope<R>(
    recordingBacktraces: Bool, _ body: () async throws -> R
  ) async rethrows -> (result: R, scope: UInt32) {
    let scope = LeakScope()
    return (try await scope.run(recordingBacktraces: recordingBacktraces) { try await body() }, scope.id)
  }

  func leakedCyclesProblem(
    inScope scope: UInt32, subject: String, place: String, timeout: Duration, knownFile: String?
  ) -> String? {
    LeakedCyclesCheck.problem(
      in: LeakScope(id: scope), subject: subject, place: place, timeout: timeout, knownFile: knownFile)
  }
}

/// Registers the census with the testing assertions and traits when the program loads: called from
/// a load-time constructor of `CRetainGraphCensus` (a weak reference there, as for the report at
/// exit; public, as that one is, so that no build drops it for having no Swift caller). Not for callers.
@_cdecl("rgc_swift_register_census")
public func _retainGraphRegisterCensus() {
  CensusProviderImplementation.registerOnce()
}
