internal import CRetainGraphCensus
internal import Foundation
public import RetainGraph
package import RetainGraphProcess
internal import RetainGraphRuntime

/// The heap census: every live Swift object in the process, by type, with what retains each.
///
/// ```swift
/// import RetainGraphCensus
///
/// HeapCensus.start()
/// let feed = Feed(); feed.open(); feed.close()
/// HeapCensus.liveCount(of: FeedCell.self)            // cells still alive after close
/// print(HeapCensus.retainers(of: survivor))           // who holds one, from a global
/// HeapCensus.stop()
/// ```
///
/// While it runs, the census sees every object allocated through `swift_allocObject` from the
/// program's own code, Foundation and generic specialisations, through a definition of
/// `swift_allocObject` that this module links into the program (ELF symbol interposition, Linux).
/// Objects allocated before ``start(recordingBacktraces:)`` and objects libswiftCore allocates
/// internally are not seen; see <doc:UsingTheCensus> for what that excludes.
///
/// Starting and stopping nest: the census records while more ``start(recordingBacktraces:)`` calls
/// than ``stop()`` calls were made, so tests running in parallel can each start and stop it. The
/// allocation path never waits for a lock: recording is a store into a table, from slots each
/// thread reserves 64 at a time (one atomic increment), and an unowned count taken before the
/// object is returned (so without an atomic operation); when a thread starts its next 64, it gives
/// back the memory of those of its last 64 that died, if no query holds the table at that moment.
public enum HeapCensus {
  /// Whether allocations are being recorded.
  public static var isRunning: Bool { CensusTable.isRunning }

  /// Whether this process's `swift_allocObject` is the census's own, so that starting the census
  /// records allocations (false where the platform's linker does not interpose it).
  public static var isAvailable: Bool { CensusTable.isInterposed }

  /// How many allocations made while the census ran were not recorded (its table was full, after
  /// about 17 billion allocations, or memory ran out): when not zero, counts are low.
  public static var unrecordedAllocations: UInt64 { rgc_dropped_count() }

  /// Starts recording every allocation (nests with ``stop()``).
  ///
  /// Objects alive before the call are not in the census; start it before the code under test
  /// allocates.
  /// - Parameter recordingBacktraces: also record each allocation's call stack, for
  ///   ``allocationBacktrace(of:)`` (costs a `backtrace()` call and a small allocation each).
  public static func start(recordingBacktraces: Bool = false) {
    CensusRegistration.countProcessWideStart(recordingBacktraces: recordingBacktraces)
    startScoped(recordingBacktraces: recordingBacktraces)
  }

  /// Starts the census for a scope (``run(recordingBacktraces:_:)``, the `.heapCensus` trait):
  /// the testing assertions use it only inside the scope.
  static func startScoped(recordingBacktraces: Bool) {
    CensusProviderImplementation.registerOnce()
    rgc_start(recordingBacktraces ? 1 : 0)
  }

  /// Stops recording once every ``start(recordingBacktraces:)`` has its `stop()`, forgetting the
  /// records of the objects allocated while it ran that died, and of the dead in the next slice of
  /// older records (so that its cost follows what the run allocated, not the size of the census).
  /// Objects alive then stay recorded (a later start sees them); their memory (not their contents)
  /// is kept after they die until the census next sweeps them (a query, a later stop's slice), or
  /// ``reset()``. A stopped census costs one flag check per allocation.
  ///
  /// A stop ends the latest start not yet stopped: call stacks stay recorded while a start that
  /// asked for them (or a scope, ``run(recordingBacktraces:_:)``) is not stopped.
  public static func stop() {
    let recordingBacktraces = CensusRegistration.countProcessWideStop() ?? false
    rgc_stop(recordingBacktraces ? 1 : 0)
  }

  /// Forgets every recorded object (live or not), returning the memory the census kept.
  public static func reset() {
    rgc_lock()
    rgc_forget_all()
    rgc_unlock()
    rgc_forget_queued()
  }

  /// Runs `body` with the census started, and stops it afterwards: the XCTest way to run a test
  /// under the census (`override func invokeTest() { HeapCensus.run { super.invokeTest() } }`).
  /// - Parameters:
  ///   - recordingBacktraces: also record each allocation's call stack.
  ///   - body: the code to run.
  /// - Returns: what `body` returns.
  /// - Throws: what `body` throws.
  public static func run<R>(recordingBacktraces: Bool = false, _ body: () throws -> R) rethrows -> R {
    startScoped(recordingBacktraces: recordingBacktraces)
    defer { rgc_stop(recordingBacktraces ? 1 : 0) }
    return try CensusRegistration.$isInScope.withValue(true) { try body() }
  }

  /// The async twin of ``run(recordingBacktraces:_:)``.
  /// - Parameters:
  ///   - recordingBacktraces: also record each allocation's call stack.
  ///   - isolation: the caller's actor, inferred.
  ///   - body: the code to run.
  /// - Returns: what `body` returns.
  /// - Throws: what `body` throws.
  public static func run<R>(
    recordingBacktraces: Bool = false, isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> R
  ) async rethrows -> R {
    startScoped(recordingBacktraces: recordingBacktraces)
    defer { rgc_stop(recordingBacktraces ? 1 : 0) }
    return try await CensusRegistration.$isInScope.withValue(true) { try await body() }
  }

  // MARK: - Marks

  /// A point in the sequence of allocations: "allocated since this mark". Allocations are
  /// numbered in order on each thread; one that happens after the mark (on its thread, or on one
  /// that learnt of it) is numbered after it.
  public struct Mark: Sendable, Hashable, Comparable {
    /// The number the next allocation recorded after the mark gets.
    public let sequence: UInt64

    /// Orders marks by time.
    /// - Parameters:
    ///   - lhs: a mark.
    ///   - rhs: another mark.
    /// - Returns: whether `lhs` was taken before `rhs`.
    public static func < (lhs: Mark, rhs: Mark) -> Bool { lhs.sequence < rhs.sequence }
  }

  /// The current mark: objects allocated after this call are "since" it.
  /// - Returns: the mark.
  public static func mark() -> Mark { Mark(sequence: CensusTable.nextSequence) }

  // MARK: - Counting

  /// How many instances of `type` (subclasses and conforming classes too) are alive among the
  /// objects the census saw allocated (since `mark`, when given).
  /// - Parameters:
  ///   - type: a class, or a protocol (`(any Observer).self`).
  ///   - mark: count only objects allocated after this mark.
  /// - Returns: the count.
  /// - Complexity: O(*n*) for *n* recorded objects.
  public static func liveCount<T>(of type: T.Type, since mark: Mark? = nil) -> Int {
    CensusTable.unrecorded { count(of: type, since: mark) }
  }

  private static func count<T>(of type: T.Type, since mark: Mark?) -> Int {
    var matcher = TypeMatcher(type)
    return CensusTable.withLiveRecords(since: mark?.sequence ?? 0) { records in
      records.reduce(0) { $0 + (matcher.matches($1.object) ? 1 : 0) }
    }
  }

  /// The live instances of `type` (subclasses and conforming classes too) the census saw
  /// allocated (since `mark`, when given), oldest first. The array holds them strongly.
  /// - Parameters:
  ///   - type: a class, or a protocol.
  ///   - mark: only objects allocated after this mark.
  /// - Returns: the objects.
  public static func liveObjects<T>(of type: T.Type, since mark: Mark? = nil) -> [T] {
    CensusTable.unrecorded { objects(of: type, since: mark) }
  }

  private static func objects<T>(of type: T.Type, since mark: Mark?) -> [T] {
    let before = CensusTable.nextSequence
    CensusTable.settle()
    var matcher = TypeMatcher(type)
    let objects: [AnyObject] = CensusTable.withLiveRecords(since: mark?.sequence ?? 0, before: before) {
      records in
      records.compactMap { record in
        matcher.matches(record.object) ? CensusRuntime.object(at: record.object) : nil
      }
    }
    return objects.compactMap { $0 as? T }
  }

  /// Live objects counted by type, most numerous first (ties by name).
  /// - Parameter mark: count only objects allocated after this mark.
  /// - Returns: one entry per type with live instances.
  public static func liveCounts(since mark: Mark? = nil) -> [TypeCount] {
    CensusTable.unrecorded { countsByType(since: mark) }
  }

  private static func countsByType(since mark: Mark?) -> [TypeCount] {
    var counts: [UnsafeRawPointer: Int] = [:]
    CensusTable.withLiveRecords(since: mark?.sequence ?? 0) { records in
      for record in records {
        if let metadata = CensusRuntime.metadata(ofObjectAt: record.object) {
          counts[metadata, default: 0] += 1
        }
      }
    }
    var byName: [String: Int] = [:]
    for (metadata, count) in counts {
      byName[CensusNames.typeName(metadata: metadata), default: 0] += count
    }
    return byName.map { TypeCount(typeName: $0.key, count: $0.value) }
      .sorted { ($0.count, $1.typeName) > ($1.count, $0.typeName) }
  }

  // MARK: - Retainers and backtraces

  /// Who retains `object`: every live object and global that references it (with the ownership
  /// the walker reads from the runtime), and the shortest path of strong references to it from a
  /// global, or else from a holder the census cannot see.
  ///
  /// ```swift
  /// print(HeapCensus.retainers(of: image))
  /// // Image is referenced by 1 holder:
  /// //   ImageCache.images[0]
  /// // Shortest retainer path, from the global ImageCache.shared:
  /// //   ImageCache
  /// //     ↓ images[0]
  /// //   Image
  /// ```
  /// It walks every live object the census saw and every object reachable from global storage.
  /// The census's records are copied first (those allocated before the call), and the copy is read
  /// with the census unlocked, so threads that keep allocating meanwhile neither stall the search
  /// nor grow the census while it runs. The objects' fields are read in this process as they are
  /// now: when other threads may be changing them, use ``retainers(isolating:timeout:)``, which
  /// searches a frozen copy of the process.
  /// - Parameter object: the object to explain.
  /// - Returns: the report; its `description` is the trace and ``RetainerReport/dot()`` draws it.
  /// - Complexity: O(*n* + *e* + *g*) for *n* objects, *e* references and *g* words of global storage.
  public static func retainers(of object: AnyObject) -> RetainerReport {
    CensusTable.unrecorded {
      var report = RetainerSearch.report(for: object)
      report.allocationBacktrace = allocationBacktrace(of: object)
      return report
    }
  }

  /// The same report as ``retainers(of:)``, searched in a forked copy of the process: the search
  /// reads every live object's fields, which other threads (event loops, queues, tasks, parallel
  /// tests) may be changing; the child sees a frozen copy-on-write image with one thread, so the
  /// search cannot crash this process. The report comes back encoded; nothing else does.
  /// - Parameters:
  ///   - object: an object allocated while the census ran.
  ///   - timeout: how long the child may take (it may block on a lock another thread held at the
  ///     fork; it is killed then).
  /// - Returns: the report.
  /// - Throws: `ForkedWalkError` when the child crashed, timed out or sent something unreadable.
  public static func retainers(
    isolating object: AnyObject, timeout: Duration = .seconds(30)
  ) throws(ForkedWalkError) -> RetainerReport {
    try retainers(isolating: object, timeout: timeout, childFault: nil)
  }

  /// ``retainers(isolating:timeout:)`` with a test hook: a fault the child runs instead of (or
  /// before) the search.
  package static func retainers(
    isolating object: AnyObject, timeout: Duration, childFault: ObjectGraph.ForkedChildFault?,
    cancellation: CancellationFlag? = nil
  ) throws(ForkedWalkError) -> RetainerReport {
    // An injected fault is expected: its runtime message (a trap's "Fatal error") is not output.
    let silence = childFault == nil ? -1 : open("/dev/null", O_WRONLY | O_CLOEXEC)
    defer { if silence >= 0 { close(silence) } }
    CensusRuntime.prepareForFork()
    let bytes = try ForkedChild.run(
      timeout: timeout, standardError: silence >= 0 ? silence : nil, cancellation: cancellation
    ) { attempt in
      if let childFault, let bytes = childFault.perform(attempt: attempt) { return bytes }
      let report = retainers(of: object)
      return (try? JSONEncoder().encode(report)).map { Array($0) } ?? []
    }
    do {
      return try JSONDecoder().decode(RetainerReport.self, from: Data(bytes))
    } catch {
      throw .malformedData("the retainer report (\(bytes.count) bytes) could not be decoded: \(error)")
    }
  }

  /// Where `object` was allocated: the function names of its allocating call stack, innermost
  /// first, when the census recorded it with `recordingBacktraces: true`; nil otherwise.
  /// - Parameter object: an object allocated while the census ran.
  /// - Returns: the function names (`?` where no symbol names a frame), or nil.
  public static func allocationBacktrace(of object: AnyObject) -> [String]? {
    let address = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    guard let frames = CensusTable.allocationFrames(of: address) else { return nil }
    // A return address points just past the call: look up the byte before it.
    var names = frames.map { CensusRuntime.functionName(containing: $0 - 1).map(LeaksAtExit.shortName) }
    // The first frames are the census's interposer (C, so no Swift name).
    while names.count > 1, names.first == .some(nil) { names.removeFirst() }
    return names.map { $0 ?? "?" }
  }

  /// `App.makeImage() -> App.Image` → `App.makeImage()`: the name up to its parameter list's end.
  static func withoutSignature(_ name: String) -> String {
    var depth = 0
    for index in name.indices {
      switch name[index] {
      case "(": depth += 1
      case ")":
        depth -= 1
        if depth == 0 { return String(name[...index]) }
      default: continue
      }
    }
    return name
  }
}

/// The number of live instances of one type.
public struct TypeCount: Sendable, Hashable, Codable {
  /// The type's qualified name (`App.ImageCache`), or `(closure context)` / `(box)`.
  public var typeName: String
  /// How many are alive.
  public var count: Int
}

/// Decides per metadata (cached) whether objects are instances of `T`.
struct TypeMatcher<T> {
  private var known: [UnsafeRawPointer: Bool] = [:]

  init(_ type: T.Type) {}

  mutating func matches(_ address: UnsafeRawPointer) -> Bool {
    guard let metadata = CensusRuntime.metadata(ofObjectAt: address) else { return false }
    if let answer = known[metadata] { return answer }
    let answer: Bool
    if let isInstance = CensusRuntime.isInstance(metadata: metadata, of: T.self) {
      answer = isInstance
    } else if CensusRuntime.isClass(metadata: metadata) {
      // A protocol: every instance of a class answers the same; ask one that is alive.
      guard let object = CensusRuntime.object(at: address) else { return false }
      answer = object is T
    } else {
      answer = false
    }
    known[metadata] = answer
    return answer
  }
}
