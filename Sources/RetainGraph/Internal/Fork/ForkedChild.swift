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
/// given the rest of the timeout instead). Errors say how many children were tried.
///
/// Generic on purpose: ``ObjectGraph/init(snapshotting:options:timeout:)`` sends a graph through
/// it, and a heap-wide walk (the census) can send its own bytes the same way.
package enum ForkedChild {
  /// The child's exit status when it could not write to the pipe.
  static let writeFailedStatus: Int32 = 70
  /// The largest answer accepted (16 GiB): a length past it is malformed, not an allocation.
  static let maxPayloadBytes: UInt64 = 1 << 34
  /// How many children a call makes at most (the first and two fresh forks).
  package static let tries = 3
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
  }

  /// Runs `body` in a forked child and returns the bytes it produced.
  /// - Parameters:
  ///   - timeout: how long the whole call may take, every try included, from the first fork to the
  ///     last child's last byte and its exit.
  ///   - standardError: a descriptor the child writes its standard error to (a test that makes the
  ///     child trap keeps the runtime's message out of the test output); nil keeps this process's.
  ///   - trace: called in the parent once each child runs (for tests that check for leftovers).
  ///   - body: runs in the child, which has one thread: it must not wait for other threads, and
  ///     anything holding a lock at the fork (another thread's `Mutex`, the runtime's metadata
  ///     locks) stays locked there. A crash in it ends only the child. Its argument is the try,
  ///     from 1.
  /// - Returns: the bytes `body` returned, exactly.
  /// - Throws: ``ForkedWalkError`` when every child crashed, the timeout passed, a child exited
  ///   early or sent a truncated answer, or a system call failed.
  package static func run(
    timeout: Duration,
    standardError: Int32? = nil,
    trace: ((Trace) -> Void)? = nil,
    body: (_ attempt: Int) -> [UInt8]
  ) throws(ForkedWalkError) -> [UInt8] {
    #if canImport(Glibc) || canImport(Darwin)
      let deadline = ContinuousClock.now + timeout
      var attempt = 1
      while true {
        let isLast = attempt == tries
        switch try runOnce(
          attempt: attempt, deadline: deadline, timeout: timeout, replaceIfStalled: !isLast,
          standardError: standardError, trace: trace, body: body)
        {
        case .bytes(let bytes):
          return bytes
        case .crashed(let signal):
          guard !isLast, deadline - .now > .zero else { throw .childCrashed(signal: signal, tries: attempt) }
        case .stalled:
          break
        }
        attempt += 1
      }
    #else
      throw .systemCallFailed("fork (unsupported on this platform)", errno: 0)
    #endif
  }

  /// ``run(timeout:standardError:trace:body:)`` for a body that does not need its try number.
  package static func run(
    timeout: Duration,
    standardError: Int32? = nil,
    trace: ((Trace) -> Void)? = nil,
    body: () -> [UInt8]
  ) throws(ForkedWalkError) -> [UInt8] {
    try run(timeout: timeout, standardError: standardError, trace: trace) { _ in body() }
  }

  /// How one child ended, when it was not an error to throw at once.
  enum Outcome {
    /// It sent its answer and exited.
    case bytes([UInt8])
    /// A signal ended it (not the parent's `SIGKILL`).
    case crashed(Int32)
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
      body: (_ attempt: Int) -> [UInt8]
    ) throws(ForkedWalkError) -> Outcome {
      let (readEnd, writeEnd) = try makePipe()
      // The walk's process-wide caches are `ForkSafeMutex`es: held across the fork, made anew in
      // the child. Other locks a thread held at the fork (the runtime's, a user's) can still block
      // the child: it is then replaced, or killed at the timeout.
      let pid = fork()
      let forkError = errno
      if pid == 0 {
        close(readEnd)
        runChild(writingTo: writeEnd, standardError: standardError) { body(attempt) }
      }
      close(writeEnd)
      defer { close(readEnd) }
      guard pid > 0 else { throw .systemCallFailed("fork", errno: forkError) }
      trace?(Trace(pid: pid, pipeInode: inode(of: readEnd), attempt: attempt))
      var reader = Reader(
        pid: pid, fd: readEnd, deadline: deadline, timeout: timeout, attempt: attempt,
        watchesForStalls: replaceIfStalled)
      return try reader.receive()
    }

    /// A pipe whose ends are closed on `exec` (a process another thread spawns does not keep them).
    private static func makePipe() throws(ForkedWalkError) -> (read: Int32, write: Int32) {
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
    private static let pipe2 = RuntimeSymbols.function(
      "pipe2", as: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)

    private static func inode(of fd: Int32) -> UInt64 {
      var info = stat()
      return fstat(fd, &info) == 0 ? UInt64(info.st_ino) : 0
    }

    /// The child's side: never returns.
    private static func runChild(writingTo fd: Int32, standardError: Int32?, body: () -> [UInt8]) -> Never {
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

    /// glibc's `close_range` (2.34, Linux 5.9), which the Glibc module does not export.
    private static let closeRange = RuntimeSymbols.function(
      "close_range", as: (@convention(c) (UInt32, UInt32, Int32) -> Int32).self)

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

    /// The parent's side of one child.
    private struct Reader {
      let pid: Int32
      let fd: Int32
      let deadline: ContinuousClock.Instant
      let timeout: Duration
      /// Which try this child is, from 1.
      let attempt: Int
      /// Whether a stalled child is killed and reported as ``Outcome/stalled`` (not on the last try).
      let watchesForStalls: Bool
      /// Since when the child has slept with no progress, and its CPU time then.
      var stall: (since: ContinuousClock.Instant, cpuTicks: UInt64)?
      /// Set when the child was found stalled.
      var isStalled = false
      var header: [UInt8] = []
      var payload: [UInt8] = []
      var expected: Int?
      var scratch = [UInt8](repeating: 0, count: 1 << 20)
      /// The child's wait status once reaped.
      var status: Int32?

      /// How often the parent checks whether a silent child has exited: a child forked meanwhile
      /// by another thread may hold the pipe's write end open, so end-of-file cannot be relied on.
      static let exitCheckInterval: Int32 = 10

      var isComplete: Bool { expected.map { payload.count == $0 } ?? false }

      mutating func receive() throws(ForkedWalkError) -> Outcome {
        do throws(ForkedWalkError) {
          try readUntilCompleteOrExited()
        } catch {
          killAndReap()
          throw error
        }
        if isStalled {
          killAndReap()
          return .stalled
        }
        if status == nil { try reap() }
        return try verdict()
      }

      /// The answer, judged by the child's exit and the bytes it sent.
      func verdict() throws(ForkedWalkError) -> Outcome {
        let status = status ?? 0
        let signal = status & 0x7F
        if signal != 0 && signal != 0x7F { return .crashed(signal) }
        let exitStatus = (status >> 8) & 0xFF
        if exitStatus != 0 { throw .childExited(status: exitStatus) }
        guard let expected else {
          throw .malformedData("the child exited after \(header.count) of the 8 bytes of the length")
        }
        guard payload.count == expected else {
          throw .malformedData(
            "the child exited after \(payload.count) of the \(expected) bytes it announced")
        }
        return .bytes(payload)
      }

      mutating func readUntilCompleteOrExited() throws(ForkedWalkError) {
        while !isComplete {
          let left = deadline - .now
          guard left > .zero else { throw .timedOut(after: timeout, tries: attempt) }
          var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
          let ready = poll(&entry, 1, min(Self.exitCheckInterval, Self.milliseconds(left)))
          if ready < 0 {
            if errno == EINTR { continue }
            throw .systemCallFailed("poll", errno: errno)
          }
          if ready == 0 {
            // Silent: has the child gone? Then take what it left in the pipe and stop.
            if try reapIfExited() {
              try drain()
              return
            }
            if watchesForStalls && hasStalled() {
              isStalled = true
              return
            }
            continue
          }
          if try !readAvailable() {
            // End of file: the child closed its end, so it is exiting (or has exited).
            return
          }
        }
      }

      /// Reads once; false at end of file.
      mutating func readAvailable() throws(ForkedWalkError) -> Bool {
        let wanted = expected.map { $0 - payload.count } ?? (8 - header.count)
        let fd = fd
        let count = scratch.withUnsafeMutableBytes { read(fd, $0.baseAddress, min($0.count, wanted)) }
        if count < 0 {
          if errno == EINTR || errno == EAGAIN { return true }
          throw .systemCallFailed("read", errno: errno)
        }
        if count == 0 { return false }
        stall = nil
        if expected == nil {
          header += scratch[..<count]
          if header.count == 8 {
            let length = header.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
            guard length <= ForkedChild.maxPayloadBytes else {
              throw .malformedData(
                "the child announced \(length) bytes, more than the limit \(ForkedChild.maxPayloadBytes)")
            }
            expected = Int(length)
            payload.reserveCapacity(min(Int(length), 1 << 26))
          }
        } else {
          payload += scratch[..<count]
        }
        return true
      }

      /// Reads what an exited child left in the pipe.
      mutating func drain() throws(ForkedWalkError) {
        while !isComplete {
          var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
          let ready = poll(&entry, 1, 0)
          if ready < 0 && errno == EINTR { continue }
          guard ready > 0, try readAvailable() else { return }
        }
      }

      /// Reaps the child if it has exited; true when it has.
      mutating func reapIfExited() throws(ForkedWalkError) -> Bool {
        var status: Int32 = 0
        while true {
          let result = waitpid(pid, &status, WNOHANG)
          if result == pid {
            self.status = status
            return true
          }
          if result == 0 { return false }
          if errno == EINTR { continue }
          throw .systemCallFailed("waitpid", errno: errno)
        }
      }

      /// Waits for a child that finished sending (or closed the pipe) to exit, until the deadline;
      /// kills it past the deadline.
      mutating func reap() throws(ForkedWalkError) {
        var pause: UInt32 = 20
        while try !reapIfExited() {
          guard deadline - .now > .zero else {
            killAndReap()
            throw .timedOut(after: timeout, tries: attempt)
          }
          usleep(pause)
          pause = min(pause * 2, 5_000)
        }
      }

      /// Whether the child has slept for ``ForkedChild/stallWindow`` without using CPU time or
      /// sending a byte (sending resets `stall`): a child blocked on a lock held at the fork. A child
      /// that is working but waits for a processor is runnable, not asleep. Linux only (it reads
      /// `/proc/PID/stat`); elsewhere never.
      mutating func hasStalled() -> Bool {
        guard let (state, ticks) = Self.schedulerState(of: pid), state == UInt8(ascii: "S") else {
          stall = nil
          return false
        }
        guard let stall, stall.cpuTicks == ticks else {
          self.stall = (.now, ticks)
          return false
        }
        return ContinuousClock.now - stall.since >= ForkedChild.stallWindow
      }

      /// The process's state letter (`R`, `S`, `D`, `Z`…) and its CPU time in clock ticks (user and
      /// system), from `/proc/PID/stat`; nil when it cannot be read.
      static func schedulerState(of pid: Int32) -> (state: UInt8, cpuTicks: UInt64)? {
        #if os(Linux)
          let file = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
          guard file >= 0 else { return nil }
          defer { close(file) }
          var buffer = [UInt8](repeating: 0, count: 1024)
          let count = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
          guard count > 0 else { return nil }
          // "pid (name) S ppid …": the name may hold spaces and parentheses, so fields are
          // counted from the last ')'. After it: state (3), …, utime (14), stime (15).
          guard let nameEnd = buffer[..<count].lastIndex(of: UInt8(ascii: ")")) else { return nil }
          let fields = buffer[(nameEnd + 1)..<count].split(separator: UInt8(ascii: " "))
          guard fields.count > 12, let state = fields[0].first,
            let user = UInt64(String(decoding: fields[11], as: UTF8.self)),
            let system = UInt64(String(decoding: fields[12], as: UTF8.self))
          else { return nil }
          return (state, user + system)
        #else
          return nil
        #endif
      }

      /// Kills the child and waits for it: it cannot ignore `SIGKILL`, so this does not block long.
      mutating func killAndReap() {
        guard status == nil else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        self.status = status
      }

      static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: max(total, 1))
      }
    }
  #endif
}
