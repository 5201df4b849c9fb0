internal import Synchronization

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// Runs a function in a forked copy of the process and brings its bytes back through a pipe: the
/// only place in the package that forks, waits for or kills a process.
///
/// The child sees a frozen copy-on-write image of the whole heap with a single thread (the one
/// that forked), so it can read objects other threads of the parent keep changing. It runs `body`,
/// writes an 8-byte little-endian length and the bytes, and leaves with `_exit` (no atexit
/// handlers, no stdio flush). The parent reads against a deadline, kills the child with `SIGKILL`
/// when it passes, always reaps the child with `waitpid`, and closes both ends of the pipe.
///
/// A child can fail for reasons a fresh fork does not share: it copied an object another thread
/// was halfway through changing (it crashes), or a lock another thread held at the fork (it blocks
/// for ever: that thread does not exist in the child). So a call makes up to ``tries`` children,
/// all within the one timeout: a crashed child is followed by a fresh fork, and so is a stalled one
/// (on Linux: asleep, with no CPU time used and no byte sent for ``stallWindow``; the last try is
/// given the rest of the timeout instead). Errors say how many children were tried. On Linux a child
/// dies with its parent (a parent-death signal, `SIGKILL`), so a killed test run or server leaves no
/// child walking on.
///
/// Generic on purpose: it knows nothing of object graphs. The core's forked walk sends a graph
/// through it (`ForkedChild` in the core, which turns a ``ForkedProcessError`` into the public
/// `ForkedWalkError`, case for case), and the census its reports the same way.
package enum ForkedProcess {
  /// Whether this process is a child forked by ``ForkedProcess`` (one thread, a frozen copy of its
  /// parent's memory: nothing frees an object unless the child itself releases it).
  nonisolated(unsafe) package private(set) static var isChild = false

  /// The child's exit status when it could not write to the pipe.
  package static let writeFailedStatus: Int32 = 70
  /// The child's exit status when its parent was gone before it could ask to die with it.
  static let parentGoneStatus: Int32 = 71
  /// The largest answer accepted (16 GiB): a length past it is malformed, not an allocation.
  static let maxPayloadBytes: UInt64 = 1 << 34
  /// How many children a call makes at most (the first and four fresh forks). Under load a thread
  /// that holds one of the runtime's locks (the type-name cache's, seen in a whole-suite run) can
  /// stay off the processor for a while, and every child forked meanwhile blocks on it: three
  /// tries were not always enough (a census sweep's three children all blocked, once).
  package static let tries = 5
  /// How long the parent waits before it forks again after a stalled child, times the try: time for
  /// the thread that held the lock to run and let it go.
  static let pauseAfterStall: Duration = .milliseconds(50)
  /// How long a child may sleep without using CPU time or sending a byte before it is taken as
  /// blocked on a lock held at the fork, and replaced by a fresh fork.
  package static let stallWindow: Duration = .milliseconds(250)

  /// What a test can observe of one child, reported before the parent waits for it.
  package struct Trace: Sendable {
    /// The child's process id.
    package var pid: Int32
    /// The inode of the pipe (as in `/proc/self/fd/N -> pipe:[inode]`).
    package var pipeInode: UInt64
    /// Which try of the call this child is, from 1.
    package var attempt: Int = 1
    /// How much of the call's timeout was left when `fork` returned in the parent (a fork waits
    /// while its handlers take the locks of a fork-safe state, such as the heap census's table).
    package var timeLeft: Duration = .zero
    /// Where the parent writes how the child ended, once it has been reaped.
    let record = EndingRecord()

    /// How the child ended: nil until the parent has reaped it (read it after the call returned).
    package var ending: Ending? { record.ending.withLock { $0 } }
  }

  /// How one child of a call ended, as its parent saw it.
  package enum Ending: Sendable, Equatable {
    /// It sent its whole answer and exited.
    case answered
    /// A signal other than the parent's `SIGKILL` ended it; a fresh fork may follow.
    case crashed(signal: Int32)
    /// It was asleep on a lock for ``stallWindow`` and was killed; a fresh fork follows.
    case stalled
    /// The call failed with this error while the child was the current try.
    case failed(ForkedProcessError)
  }

  /// A trace's ending, written by the parent's thread and read by the test after the call.
  final class EndingRecord: Sendable {
    let ending = Mutex<Ending?>(nil)
  }

  /// Runs `body` in a forked child and returns the bytes it produced.
  /// - Parameters:
  ///   - timeout: how long the whole call may take, every try included, from the first fork to the
  ///     last child's last byte and its exit.
  ///   - standardError: a descriptor the child writes its standard error to (a test that makes the
  ///     child trap keeps the runtime's message out of the test output); nil keeps this process's.
  ///   - trace: called in the parent once each child runs (for tests that check for leftovers).
  ///   - cancellation: when set (the waiting task was cancelled), the child is killed and the call
  ///     throws ``cancelled``.
  ///   - body: runs in the child, which has one thread: it must not wait for other threads, and
  ///     anything holding a lock at the fork (another thread's `Mutex`, the runtime's metadata
  ///     locks) stays locked there. A crash in it ends only the child. Its argument is the try,
  ///     from 1.
  /// - Returns: the bytes `body` returned, exactly.
  /// - Throws: ``ForkedProcessError`` when every child crashed, the timeout passed, a child exited
  ///   early or sent a truncated answer, or a system call failed.
  package static func run(
    timeout: Duration,
    standardError: Int32? = nil,
    trace: ((Trace) -> Void)? = nil,
    cancellation: CancellationFlag? = nil,
    body: (_ attempt: Int) -> [UInt8]
  ) throws(ForkedProcessError) -> [UInt8] {
    #if canImport(Glibc) || canImport(Darwin)
      let deadline = ContinuousClock.now + timeout
      var attempt = 1
      while true {
        if cancellation?.isSet == true { throw cancelled }
        let isLast = attempt == tries
        switch try runOnce(
          attempt: attempt, deadline: deadline, timeout: timeout, replaceIfStalled: !isLast,
          standardError: standardError, trace: trace, cancellation: cancellation, body: body)
        {
        case .bytes(let bytes):
          return bytes
        case .crashed(let signal, let progress):
          guard !isLast, deadline - .now > .zero else {
            throw .childCrashed(signal: signal, tries: attempt, progress: progress)
          }
        case .stalled:
          let pause = min(pauseAfterStall * attempt, deadline - .now)
          if pause > .zero {
            let (seconds, attoseconds) = pause.components
            var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            var left = timespec()
            while nanosleep(&time, &left) != 0 && errno == EINTR { time = left }
          }
        }
        attempt += 1
      }
    #else
      throw .systemCallFailed("fork (unsupported on this platform)", errno: 0)
    #endif
  }

  /// ``run(timeout:standardError:trace:cancellation:body:)`` for a body that does not need its try
  /// number.
  package static func run(
    timeout: Duration,
    standardError: Int32? = nil,
    trace: ((Trace) -> Void)? = nil,
    cancellation: CancellationFlag? = nil,
    body: () -> [UInt8]
  ) throws(ForkedProcessError) -> [UInt8] {
    try run(timeout: timeout, standardError: standardError, trace: trace, cancellation: cancellation) { _ in
      body()
    }
  }

  /// What a call throws when its waiting task was cancelled (the child was killed): the `async`
  /// callers turn it into a `CancellationError`; a synchronous call is never cancelled.
  package static let cancelled = ForkedProcessError.systemCallFailed("cancelled", errno: ECANCELED)

  /// How one child ended, when it was not an error to throw at once.
  enum Outcome {
    /// It sent its answer and exited.
    case bytes([UInt8])
    /// A signal ended it (not the parent's `SIGKILL`), and what it last said it was doing.
    case crashed(Int32, progress: String?)
    /// It slept with no progress for ``stallWindow`` and was killed (only when allowed).
    case stalled
  }

  #if canImport(Glibc) || canImport(Darwin)
    /// One fork: its child is always reaped and the pipe closed, whatever happens.
    private static func runOnce(
      attempt: Int,
      deadline: ContinuousClock.Instant,
      timeout: Duration,
      replaceIfStalled: Bool,
      standardError: Int32?,
      trace: ((Trace) -> Void)?,
      cancellation: CancellationFlag?,
      body: (_ attempt: Int) -> [UInt8]
    ) throws(ForkedProcessError) -> Outcome {
      let (readEnd, writeEnd) = try makePipe()
      let parent = getpid()
      // Where the child says what it is doing, for a timeout's message.
      let progress = ForkedProgress.makePage()
      defer { progress.map(ForkedProgress.release) }
      // The walk's process-wide caches are `ForkSafeMutex`es: held across the fork, made anew in
      // the child. Other locks a thread held at the fork (the runtime's, a user's) can still block
      // the child: it is then replaced, or killed at the timeout.
      let pid = fork()
      let forkError = errno
      if pid == 0 {
        close(readEnd)
        isChild = true
        ForkedProgress.page = progress
        runChild(parent: parent, writingTo: writeEnd, standardError: standardError) { body(attempt) }
      }
      close(writeEnd)
      defer { close(readEnd) }
      guard pid > 0 else { throw .systemCallFailed("fork", errno: forkError) }
      let traced = Trace(pid: pid, pipeInode: inode(of: readEnd), attempt: attempt, timeLeft: deadline - .now)
      trace?(traced)
      var reader = Reader(
        pid: pid, fd: readEnd, deadline: deadline, timeout: timeout, attempt: attempt,
        watchesForStalls: replaceIfStalled, cancellation: cancellation, progress: progress)
      let outcome: Outcome
      do throws(ForkedProcessError) {
        outcome = try reader.receive()
      } catch {
        traced.record.ending.withLock { $0 = .failed(error) }
        throw error
      }
      traced.record.ending.withLock {
        switch outcome {
        case .bytes: $0 = .answered
        case .crashed(let signal, _): $0 = .crashed(signal: signal)
        case .stalled: $0 = .stalled
        }
      }
      return outcome
    }

    /// A pipe whose ends are closed on `exec` (a process another thread spawns does not keep them).
    private static func makePipe() throws(ForkedProcessError) -> (read: Int32, write: Int32) {
      var fds: [Int32] = [-1, -1]
      if let pipe2 = Self.pipe2 {
        guard pipe2(&fds, Int32(O_CLOEXEC)) == 0 else { throw .systemCallFailed("pipe2", errno: errno) }
      } else {
        // Without pipe2 (Darwin; unverified) a process another thread spawns between these calls
        // may inherit the ends until it execs.
        guard pipe(&fds) == 0 else { throw .systemCallFailed("pipe", errno: errno) }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
      }
      #if os(Linux)
        // A bigger pipe (1 MiB, when the system allows it) moves a large graph in fewer wake-ups.
        let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ, which the Glibc module does not export
        _ = fcntl(fds[1], setPipeSize, Int32(1 << 20))
      #endif
      return (fds[0], fds[1])
    }

    /// glibc's `pipe2`, which the Glibc module does not export.
    private static let pipe2 = loadedFunction(
      "pipe2", as: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)

    private static func inode(of fd: Int32) -> UInt64 {
      var info = stat()
      return fstat(fd, &info) == 0 ? UInt64(info.st_ino) : 0
    }

    /// The child's side: never returns.
    private static func runChild(
      parent: pid_t, writingTo fd: Int32, standardError: Int32?, body: () -> [UInt8]
    ) -> Never {
      #if os(Linux)
        // The child dies with its parent (a test run killed, a server stopped with SIGKILL) instead of
        // walking, or blocking on a lock held at the fork, as an orphan: the parent-death signal is
        // sent when the thread that forked ends, and that thread waits for the child. A parent that
        // died before the signal was set is seen by the parent id, which changed to the adopter's.
        _ = Self.prctl?(1 /* PR_SET_PDEATHSIG */, UInt(SIGKILL), 0, 0, 0)
        if getppid() != parent { _exit(parentGoneStatus) }
      #endif
      if let standardError { _ = dup2(standardError, STDERR_FILENO) }
      // Descriptors the child inherited and does not use are closed: another call's pipe (its
      // write end would keep that call from seeing end of file), sockets, files.
      closeDescriptors(from: STDERR_FILENO + 1, keeping: fd)
      // A closed pipe is an error to report by status, not a signal; a crash ends the child at once
      // (no crash handler or backtracer inherited from the parent, no core file of a copy of it).
      signal(SIGPIPE, SIG_IGN)
      for crash in [SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGFPE, SIGTRAP] { signal(crash, SIG_DFL) }
      var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
      #if canImport(Glibc)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCore)
      #else
        _ = setrlimit(RLIMIT_CORE, &noCore)
      #endif
      let payload = body()
      var header = UInt64(payload.count).littleEndian
      let headerWritten = withUnsafeBytes(of: &header) { writeAll(fd, $0) }
      let payloadWritten = headerWritten && payload.withUnsafeBytes { writeAll(fd, $0) }
      _exit(payloadWritten ? 0 : writeFailedStatus)
    }

    /// Closes every descriptor from `first` up, except `kept` (Linux's `close_range`; without it,
    /// nothing is closed).
    private static func closeDescriptors(from first: Int32, keeping kept: Int32) {
      guard let closeRange = Self.closeRange else { return }
      if kept > first { _ = closeRange(UInt32(first), UInt32(kept - 1), 0) }
      _ = closeRange(UInt32(max(first, kept + 1)), UInt32.max, 0)
    }

    /// glibc's `prctl`, which the Glibc module does not import (it is variadic; its integer arguments
    /// are passed in the same registers either way on Linux's x86_64 and arm64 calling conventions).
    private static let prctl = loadedFunction(
      "prctl", as: (@convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32).self)

    /// glibc's `close_range` (2.34, Linux 5.9), which the Glibc module does not export.
    private static let closeRange = loadedFunction(
      "close_range", as: (@convention(c) (UInt32, UInt32, Int32) -> Int32).self)

    /// The C function `name` of the loaded images (`dlsym`), or nil when none exports it.
    private static func loadedFunction<Function>(_ name: String, as type: Function.Type) -> Function? {
      #if canImport(Darwin)
        let handle = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
      #else
        let handle: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
      #endif
      return dlsym(handle, name).map { unsafeBitCast($0, to: type) }
    }

    /// Writes every byte, through partial writes and interruptions.
    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
      guard var cursor = bytes.baseAddress else { return true }
      var left = bytes.count
      while left > 0 {
        let written = write(fd, cursor, left)
        if written < 0 {
          if errno == EINTR { continue }
          return false
        }
        cursor += written
        left -= written
      }
      return true
    }
  #endif
}
