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
/// Generic on purpose: ``ObjectGraph/init(snapshotting:options:timeout:)`` sends a graph through
/// it, and a heap-wide walk (the census) can send its own bytes the same way.
package enum ForkedChild {
  /// The child's exit status when it could not write to the pipe.
  static let writeFailedStatus: Int32 = 70
  /// The largest answer accepted (16 GiB): a length past it is malformed, not an allocation.
  static let maxPayloadBytes: UInt64 = 1 << 34

  /// What a test can observe of one run, reported before the parent waits for the child.
  package struct Trace: Sendable {
    /// The child's process id.
    package var pid: Int32
    /// The inode of the pipe (as in `/proc/self/fd/N -> pipe:[inode]`).
    package var pipeInode: UInt64
  }

  /// Runs `body` in a forked child and returns the bytes it produced.
  /// - Parameters:
  ///   - timeout: how long the child may take, from the fork to its last byte and its exit.
  ///   - trace: called in the parent once the child runs (for tests that check for leftovers).
  ///   - body: runs in the child, which has one thread: it must not wait for other threads, and
  ///     anything holding a lock at the fork (another thread's `Mutex`, the runtime's metadata
  ///     locks) stays locked there. A crash in it ends only the child.
  /// - Returns: the bytes `body` returned, exactly.
  /// - Throws: ``ForkedWalkError`` when the child crashed, timed out, exited early, sent a
  ///   truncated answer, or a system call failed.
  package static func run(
    timeout: Duration,
    trace: ((Trace) -> Void)? = nil,
    body: () -> [UInt8]
  ) throws(ForkedWalkError) -> [UInt8] {
    #if canImport(Glibc) || canImport(Darwin)
      let deadline = ContinuousClock.now + timeout
      let (readEnd, writeEnd) = try makePipe()
      // The walk's process-wide caches are `ForkSafeMutex`es: held across the fork, made anew in
      // the child. Other locks a thread held at the fork (the runtime's, a user's) can still block
      // the child until the timeout, a typed error.
      let pid = fork()
      let forkError = errno
      if pid == 0 {
        close(readEnd)
        runChild(writingTo: writeEnd, body: body)
      }
      close(writeEnd)
      defer { close(readEnd) }
      guard pid > 0 else { throw .systemCallFailed("fork", errno: forkError) }
      trace?(Trace(pid: pid, pipeInode: inode(of: readEnd)))
      var reader = Reader(pid: pid, fd: readEnd, deadline: deadline, timeout: timeout)
      return try reader.receive()
    #else
      throw .systemCallFailed("fork (unsupported on this platform)", errno: 0)
    #endif
  }

  #if canImport(Glibc) || canImport(Darwin)
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
    private static func runChild(writingTo fd: Int32, body: () -> [UInt8]) -> Never {
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

    /// The parent's side of one run.
    private struct Reader {
      let pid: Int32
      let fd: Int32
      let deadline: ContinuousClock.Instant
      let timeout: Duration
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

      mutating func receive() throws(ForkedWalkError) -> [UInt8] {
        do throws(ForkedWalkError) {
          try readUntilCompleteOrExited()
        } catch {
          killAndReap()
          throw error
        }
        if status == nil { try reap() }
        return try verdict()
      }

      /// The answer, judged by the child's exit and the bytes it sent.
      func verdict() throws(ForkedWalkError) -> [UInt8] {
        let status = status ?? 0
        let signal = status & 0x7F
        if signal != 0 && signal != 0x7F { throw .childCrashed(signal: signal) }
        let exitStatus = (status >> 8) & 0xFF
        if exitStatus != 0 { throw .childExited(status: exitStatus) }
        guard let expected else {
          throw .malformedData("the child exited after \(header.count) of the 8 bytes of the length")
        }
        guard payload.count == expected else {
          throw .malformedData(
            "the child exited after \(payload.count) of the \(expected) bytes it announced")
        }
        return payload
      }

      mutating func readUntilCompleteOrExited() throws(ForkedWalkError) {
        while !isComplete {
          let left = deadline - .now
          guard left > .zero else { throw .timedOut(after: timeout) }
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
            throw .timedOut(after: timeout)
          }
          usleep(pause)
          pause = min(pause * 2, 5_000)
        }
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
