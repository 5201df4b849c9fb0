internal import CRetainGraphCensus
internal import RetainGraph
internal import Synchronization

/// A part of a program's work (a test, a request) whose allocations the census marks, so that the
/// leaked cycles it made can be told from those of work running beside it.
///
/// ```swift
/// let scope = LeakScope()
/// try await scope.run { try await server.handle(request) }
/// let report = try HeapCensus.leaks(in: scope)   // only the cycles this request made
/// ```
///
/// An allocation belongs to the scope when the code that makes it runs in the body of ``run(recordingBacktraces:_:)``:
/// on its task, in child tasks, and in `Task { }`s made there (they copy the body's task-local
/// values). Work that does not inherit task-local values is outside it: `Task.detached`, a
/// Dispatch queue's block, a thread of its own. A cycle counts as the scope's when one of its
/// objects (or of what only it keeps alive) was allocated in the scope.
public struct LeakScope: Sendable, Hashable, CustomStringConvertible {
  /// The scope's number, from 1. The census keeps it modulo 2^24: after 16,777,215 scopes in one
  /// process, numbers are reused.
  public let id: UInt32

  /// A new scope, numbered after every scope made before it in this process.
  public init() {
    let next = Self.counter.add(1, ordering: .relaxed).newValue
    id = (next - 1) % rgc_largest_scope() + 1
  }

  /// The scope numbered `id` (one made before, known by its number).
  init(id: UInt32) { self.id = id }

  /// Whether allocations can be marked with their scope in this process: the census reads the
  /// scope through the Swift runtime's task-local lookup, and a process without the concurrency
  /// library has none (then no scope has any object, and a scope's report would be empty).
  public static var isAvailable: Bool { HeapCensus.isAvailable && rgc_can_read_scopes() != 0 }

  /// `leak scope 3`.
  public var description: String { "leak scope \(id)" }

  /// Runs `body` with the census started (as ``HeapCensus/run(recordingBacktraces:_:)`` does)
  /// and every allocation it makes marked as this scope's.
  /// - Parameters:
  ///   - recordingBacktraces: also record each allocation's call stack.
  ///   - body: the code to run.
  /// - Returns: what `body` returns.
  /// - Throws: what `body` throws.
  public func run<R>(recordingBacktraces: Bool = false, _ body: () throws -> R) rethrows -> R {
    Self.begin(id)
    defer { rgc_end_scoping() }
    return try HeapCensus.run(recordingBacktraces: recordingBacktraces) {
      try Self.$current.withValue(id) { try body() }
    }
  }

  /// The async twin of ``run(recordingBacktraces:_:)``.
  /// - Parameters:
  ///   - recordingBacktraces: also record each allocation's call stack.
  ///   - isolation: the caller's actor, inferred.
  ///   - body: the code to run.
  /// - Returns: what `body` returns.
  /// - Throws: what `body` throws.
  public func run<R>(
    recordingBacktraces: Bool = false, isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> R
  ) async rethrows -> R {
    Self.begin(id)
    defer { rgc_end_scoping() }
    return try await HeapCensus.run(recordingBacktraces: recordingBacktraces) {
      try await Self.$current.withValue(id) { try await body() }
    }
  }

  /// The scope of the running task: what the census reads at each allocation (0: none).
  @TaskLocal static var current: UInt32 = 0

  private static let counter = Atomic<UInt32>(0)

  /// Each scope that was run inside another, with that other (its parent): a cycle made in a
  /// nested scope is its parent's too.
  private static let parents = Mutex<[UInt32: UInt32]>([:])

  /// Tells the census which task-local to read (once), turns reading it on, and notes the scope
  /// `id` runs inside, if any.
  private static func begin(_ id: UInt32) {
    _ = installKey
    let parent = current
    if parent != 0, parent != id { parents.withLock { $0[id] = parent } }
    rgc_begin_scoping()
  }

  /// This scope's number and those of every scope run inside it (at any depth), so far.
  var withNestedScopes: Set<UInt32> {
    let parents = Self.parents.withLock { $0 }
    var children: [UInt32: [UInt32]] = [:]
    for (child, parent) in parents { children[parent, default: []].append(child) }
    var found: Set<UInt32> = [id]
    var stack = [id]
    while let scope = stack.popLast() {
      for child in children[scope] ?? [] where found.insert(child).inserted { stack.append(child) }
    }
    return found
  }

  /// The census looks the scope up by the task-local's identity, as the runtime does.
  private static let installKey: Void = {
    rgc_set_scope_key(Unmanaged.passUnretained($current).toOpaque())
  }()
}

extension HeapCensus {
  /// Every leaked cycle that holds an object allocated in `scope`, or in a scope run inside it (see
  /// ``leaks(since:timeout:)``: every live object is still counted, only the report is narrowed).
  ///
  /// Call it after the scope's work is done and its references are gone: a cycle that something
  /// outside still holds then (a running task, a queued block, a caller's variable) is not
  /// garbage, and is not reported.
  /// - Parameters:
  ///   - scope: the scope whose cycles to report.
  ///   - timeout: how long the forked child may take.
  /// - Returns: the report.
  /// - Throws: ``LeakCountError`` when nothing could be looked for (the census cannot record here
  ///   or never started, or allocations cannot be marked with their scope: an empty report would
  ///   then say nothing), or the child crashed, timed out or sent something unreadable.
  public static func leaks(in scope: LeakScope, timeout: Duration = .seconds(60)) throws(LeakCountError)
    -> LeakReport
  {
    try leaks(since: nil, scopes: scope.withNestedScopes, timeout: timeout)
  }

  /// The leak scope number the census recorded for each object (0: none; nil: not recorded), read
  /// back from its records (for tests).
  /// - Parameter objects: the objects.
  /// - Returns: each object's recorded scope, in order.
  package static func recordedScopes(of objects: [AnyObject]) -> [UInt32?] {
    let addresses = objects.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) }
    var found: [UInt: UInt32] = [:]
    CensusTable.withLiveRecords { records in
      for record in records where addresses.contains(UInt(bitPattern: record.object)) {
        found[UInt(bitPattern: record.object)] = record.scope
      }
    }
    return addresses.map { found[$0] }
  }
}
