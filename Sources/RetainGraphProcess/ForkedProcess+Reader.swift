#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Darwin)
  internal import Darwin
#endif

extension ForkedProcess {
  #if canImport(Glibc) || canImport(Darwin)
    /// The parent's side of one child.
    struct Reader {
      let pid: Int32
      let fd: Int32
      let deadline: ContinuousClock.Instant
      let timeout: Duration
      /// Which try this child is, from 1.
      let attempt: Int
      /// Whether a stalled child is killed and reported as ``Outcome/stalled`` (not on the last try).
      let watchesForStalls: Bool
      /// Set when the waiting task is cancelled: the child is killed.
      let cancellation: CancellationFlag?
      /// The page the child says what it is doing on (``ForkedProgress``).
      let progress: ForkedProgress.Page?
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

      mutating func receive() throws(ForkedProcessError) -> Outcome {
        do throws(ForkedProcessError) {
          try readUntilCompleteOrExited()
        } catch {
          killAndReap()
          // A child that said what it was doing was working, not blocked: the error says so.
          if case .timedOut(let timeout, let tries, nil) = error, let progress,
            let text = ForkedProgress.text(on: progress)
          {
            throw .timedOut(after: timeout, tries: tries, progress: text)
          }
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
      func verdict() throws(ForkedProcessError) -> Outcome {
        let status = status ?? 0
        let signal = status & 0x7F
        if signal != 0 && signal != 0x7F {
          return .crashed(signal, progress: progress.flatMap { ForkedProgress.text(on: $0) })
        }
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

      mutating func readUntilCompleteOrExited() throws(ForkedProcessError) {
        while !isComplete {
          if cancellation?.isSet == true { throw ForkedProcess.cancelled }
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
      mutating func readAvailable() throws(ForkedProcessError) -> Bool {
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
            guard length <= ForkedProcess.maxPayloadBytes else {
              throw .malformedData(
                "the child announced \(length) bytes, more than the limit \(ForkedProcess.maxPayloadBytes)")
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
      mutating func drain() throws(ForkedProcessError) {
        while !isComplete {
          var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
          let ready = poll(&entry, 1, 0)
          if ready < 0 && errno == EINTR { continue }
          guard ready > 0, try readAvailable() else { return }
        }
      }

      /// Reaps the child if it has exited; true when it has.
      mutating func reapIfExited() throws(ForkedProcessError) -> Bool {
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
      mutating func reap() throws(ForkedProcessError) {
        var pause: UInt32 = 20
        while try !reapIfExited() {
          if cancellation?.isSet == true {
            killAndReap()
            throw ForkedProcess.cancelled
          }
          guard deadline - .now > .zero else {
            killAndReap()
            throw .timedOut(after: timeout, tries: attempt)
          }
          usleep(pause)
          pause = min(pause * 2, 5_000)
        }
      }

      /// Whether the child has waited on a lock (asleep in the kernel's futex wait) for
      /// ``ForkedProcess/stallWindow`` without using CPU time or sending a byte (sending resets
      /// `stall`): a child blocked on a lock held at the fork, since the child has one thread and no
      /// other can free it. A child that is working but waits for a processor is runnable; one asleep
      /// anywhere else (a page fault, a full pipe) is not blocked on a lock: neither is replaced
      /// (under load, children asleep outside a futex were replaced and their work lost, 18 times in
      /// one whole-suite run). Linux only (it reads `/proc/PID/stat` and `/proc/PID/wchan`);
      /// elsewhere never.
      mutating func hasStalled() -> Bool {
        guard let (state, ticks) = Self.schedulerState(of: pid), state == UInt8(ascii: "S"),
          Self.waitsOnALock(pid)
        else {
          stall = nil
          return false
        }
        guard let stall, stall.cpuTicks == ticks else {
          self.stall = (.now, ticks)
          return false
        }
        return ContinuousClock.now - stall.since >= ForkedProcess.stallWindow
      }

      /// Whether the process sleeps in the kernel's futex wait (`/proc/PID/wchan`, e.g.
      /// `futex_do_wait`, `futex_wait_queue`): a lock or condition wait.
      static func waitsOnALock(_ pid: Int32) -> Bool {
        #if os(Linux)
          let file = open("/proc/\(pid)/wchan", O_RDONLY | O_CLOEXEC)
          guard file >= 0 else { return false }
          defer { close(file) }
          var buffer = [UInt8](repeating: 0, count: 128)
          let count = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
          guard count > 0 else { return false }
          return String(decoding: buffer[..<count], as: UTF8.self).contains("futex")
        #else
          return false
        #endif
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

      /// `duration` in whole milliseconds for `poll`, rounded up, from 1 to `Int32.max`: a timeout
      /// far past any real one (`.seconds(Int64.max / 2)`, a user's "no limit") is the longest wait,
      /// not an overflow.
      static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        if seconds >= Int64(Int32.max) / 1000 { return Int32.max }
        if seconds < 0 { return 1 }
        let total = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: max(total, 1))
      }
    }
  #endif
}
