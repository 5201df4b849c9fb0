package import RetainGraphProcess
internal import RetainGraphRuntime

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Darwin)
  internal import Darwin
#endif

extension ObjectGraph {
  /// Walks the graph reachable from `root` in a forked copy of the process, so that other threads
  /// may keep changing it meanwhile.
  ///
  /// ``init(reflecting:options:)`` reads every object's fields while it walks: it requires that
  /// nothing mutates what it reaches (run it on the actor or queue that owns the graph). When that
  /// cannot be promised (a debug endpoint of a server whose worker threads keep replacing objects,
  /// a walk while event loops or tasks run), use this initialiser instead. It `fork`s; the child
  /// sees a frozen copy-on-write image of the whole heap with a single thread, walks it with the
  /// same walk as ``init(reflecting:options:)``, sends the graph back through a pipe in a compact
  /// binary form and exits. The parent checks every byte and computes the cycles itself. The result
  /// is the graph an in-process walk would have found at the moment of the fork: the same nodes,
  /// edges, ownership, labels, dangling references, notes and truncation.
  ///
  /// ```swift
  /// let graph = try ObjectGraph(snapshotting: server.sessions, timeout: .seconds(5))
  /// ```
  ///
  /// What it cannot do: objects do not come back from the child (only the description does), so
  /// leak checks that take weak references to the walked objects (RetainGraphTesting's
  /// `assertNoLeaks` and `trackForLeaks`) stay in-process. A child that needs a lock another
  /// thread held at the fork (the runtime's metadata locks while a type is first used, a `Mutex` a
  /// ``GraphReflectable`` type takes) blocks: on Linux, once it has slept for a quarter of a second
  /// without progress, it is killed and a fresh fork tries again (the lock is usually free by
  /// then); a child that crashed (it copied an object another thread was halfway through changing)
  /// is replaced the same way. A call makes at most 5 children, all within `timeout`. On Darwin,
  /// `fork` in a multi-threaded process is discouraged (only async-signal-safe calls are supported
  /// in the child); this initialiser has been built and tested on Linux only.
  ///
  /// - Parameters:
  ///   - root: the object or value to start from.
  ///   - options: limits and filters, as for ``init(reflecting:options:)``.
  ///   - timeout: how long the call may take, every try included; past it the child is killed
  ///     (`SIGKILL`) and the call throws.
  /// - Throws: ``ForkedWalkError`` when every child crashed (the last signal and how many tries),
  ///   the timeout passed, a child exited early (the status), sent malformed data (what and where),
  ///   or `pipe` or `fork` failed. Every child is reaped, and no file descriptor is left open.
  /// - Complexity: the in-process walk's O(*n* + *e*), plus the fork (about the size of the page
  ///   tables: proportional to the process's resident memory) and the copy-on-write faults of the
  ///   pages the child touches.
  public init(
    snapshotting root: Any, options: GraphOptions = GraphOptions(), timeout: Duration = .seconds(10)
  ) throws(ForkedWalkError) {
    try self.init(
      snapshotting: root, options: options, timeout: timeout, childFault: nil, childStandardError: nil,
      trace: nil)
  }

  /// What a test can make the child do instead of walking, to reach each failure path.
  package enum ForkedChildFault: Sendable {
    /// Raise `SIGSEGV`, in every try.
    case crash
    /// Raise `SIGSEGV` in the tries before this one (from 1), then walk.
    case crashBefore(try: Int)
    /// Trap (`fatalError`, as a Swift runtime error would): `SIGILL` or `SIGTRAP`.
    case trap
    /// Block on a lock (a futex wait, as a child does on a lock another thread held at the fork) for
    /// the given time before walking: replaced as stalled, or killed past a timeout.
    case hang(Duration)
    /// Sleep (`nanosleep`: asleep, but on no lock, as a child waiting for a page or a full pipe)
    /// for the given time, then walk: never replaced as stalled.
    case sleep(Duration)
    /// Exit with this status without writing.
    case exit(Int32)
    /// Send these bytes instead of the graph.
    case bytes([UInt8])
  }

  /// The `async` form of ``init(snapshotting:options:timeout:)``: the same walk in a forked child,
  /// waited for on a thread of its own while the calling task suspends, so that an async test or a
  /// request handler does not hold one of the cooperative pool's threads for the whole walk (other
  /// tasks keep running meanwhile). Cancelling the calling task kills the child.
  ///
  /// ```swift
  /// let graph = try await ObjectGraph.snapshot(of: server.sessions, timeout: .seconds(5))
  /// ```
  /// - Parameters:
  ///   - root: the object or value to start from (only its type is read in this process; the child
  ///     reads a frozen copy of it).
  ///   - options: limits and filters, as for ``init(reflecting:options:)``.
  ///   - timeout: how long the call may take, every try included.
  /// - Returns: the graph.
  /// - Throws: `CancellationError` when the calling task was cancelled (the child is killed);
  ///   ``ForkedWalkError`` as ``init(snapshotting:options:timeout:)`` throws it.
  nonisolated(nonsending) public static func snapshot(
    of root: Any, options: GraphOptions = GraphOptions(), timeout: Duration = .seconds(10)
  ) async throws -> ObjectGraph {
    try await snapshot(of: root, options: options, timeout: timeout, childFault: nil, trace: nil)
  }

  /// ``snapshot(of:options:timeout:)`` with the test hooks of
  /// ``init(snapshotting:options:timeout:childFault:childStandardError:trace:cancellation:)``.
  nonisolated(nonsending) package static func snapshot(
    of root: Any, options: GraphOptions = GraphOptions(), timeout: Duration = .seconds(10),
    childFault: ForkedChildFault?, trace: (@Sendable (ForkedChild.Trace) -> Void)?
  ) async throws -> ObjectGraph {
    let box = OffPoolBox(root)
    let (result, cancelled) = await OffPool.run { cancellation in
      let result = Result { () throws(ForkedWalkError) -> ObjectGraph in
        try ObjectGraph(
          snapshotting: box.value, options: options, timeout: timeout, childFault: childFault, trace: trace,
          cancellation: cancellation)
      }
      return (result, cancellation.isSet)
    }
    if cancelled { throw CancellationError() }
    return try result.get()
  }

  /// ``init(snapshotting:options:timeout:)`` with test hooks: a fault the child runs instead of (or
  /// before) the walk, where the child's standard error goes (a trapping child's runtime message),
  /// and each child's id and pipe inode; and a flag that kills the child when set.
  package init(
    snapshotting root: Any,
    options: GraphOptions = GraphOptions(),
    timeout: Duration = .seconds(10),
    childFault: ForkedChildFault?,
    childStandardError: Int32? = nil,
    trace: ((ForkedChild.Trace) -> Void)?,
    cancellation: CancellationFlag? = nil
  ) throws(ForkedWalkError) {
    // Made here, the plans of the root's type and of the types its fields declare (with the
    // runtime's metadata and conformance caches behind them) are inherited: a child that had to
    // make them would take the runtime's locks, and one another thread held at the fork never
    // comes free in the child. Only the root's type is read, not what it holds.
    TypePlans.prepare(for: type(of: root))
    // The symbols of the root's type's image, read here once for the child (which names closures
    // with them) and for this process (which looks up the fixes' locations with them).
    SymbolNames.loadSymbols(ofImageContaining: unsafeBitCast(type(of: root), to: UnsafeRawPointer.self))
    let bytes = try ForkedChild.run(
      timeout: timeout, standardError: childStandardError, trace: trace, cancellation: cancellation
    ) { attempt in
      if let childFault, let bytes = childFault.perform(attempt: attempt) { return bytes }
      return GraphTransfer.encode(ObjectGraph(reflecting: root, options: options))
    }
    self = try GraphTransfer.decode(
      bytes, libraryModules: options.planLibraryModules, libraryRules: options.libraries)
  }
}

extension ObjectGraph.ForkedChildFault {
  /// Does the fault in a forked child: crashes, traps, sleeps, exits, or returns the bytes to send
  /// instead of the answer; nil when the child should go on (after a hang, or a crash meant for an
  /// earlier try).
  /// - Parameter attempt: which try of the call the child is, from 1.
  /// - Returns: the bytes to send instead of the answer, or nil to go on with the walk.
  package func perform(attempt: Int = 1) -> [UInt8]? {
    switch self {
    case .crash:
      raise(SIGSEGV)
    case .crashBefore(let last):
      if attempt < last { raise(SIGSEGV) }
    case .trap:
      fatalError("ForkedChildFault.trap")
    case .hang(let duration):
      // Blocks as a child does on a lock held at the fork (a futex wait), until `duration` passed.
      var now = timespec()
      clock_gettime(CLOCK_REALTIME, &now)
      let (seconds, attoseconds) = duration.components
      let nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
      var deadline = timespec(
        tv_sec: now.tv_sec + Int(seconds) + nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
      let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
      pthread_mutex_init(lock, nil)
      pthread_mutex_lock(lock)
      while pthread_mutex_timedlock(lock, &deadline) == EINTR {}
    case .sleep(let duration):
      let (seconds, attoseconds) = duration.components
      var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
      var left = timespec()
      while nanosleep(&time, &left) != 0 && errno == EINTR { time = left }
    case .exit(let status):
      _exit(status)
    case .bytes(let bytes):
      return bytes
    }
    return nil
  }
}
