import Foundation
import RetainGraphSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Standard output and standard error, written with `write(2)`: a failed write is an error the
/// command reports (`FileHandle.write` traps on one, and `print`'s buffer loses it at exit).
enum StandardStreams {
  /// Standard output could not be written: a full device, a closed pipe, a closed descriptor.
  struct WriteFailure: Error {
    /// The `errno` of the failed write.
    var code: Int32

    /// `EPIPE`: the reader went away (with SIGPIPE ignored; otherwise the signal ends the process).
    var isClosedPipe: Bool { code == EPIPE }

    /// The exit status: 141 (128 + SIGPIPE, what a shell reports for a process a closed pipe
    /// stopped) for a closed pipe, 2 for any other write error.
    var exitStatus: Int32 { isClosedPipe ? 128 + SIGPIPE : 2 }

    var message: String { "error: cannot write to standard output: \(String(cString: strerror(code)))" }
  }

  /// Writes all of `data` to standard output.
  static func writeOutput(_ data: Data) throws(WriteFailure) {
    guard AtomicFile.writeAll(data, to: STDOUT_FILENO) else { throw WriteFailure(code: errno) }
  }

  /// Writes `text` and a line break to standard output.
  static func printOutput(_ text: String) throws(WriteFailure) {
    try writeOutput(Data((text + "\n").utf8))
  }

  /// Writes `text` and a line break to standard error; when even that fails there is nowhere left to
  /// say so, and the exit status alone tells.
  static func printError(_ text: String) {
    _ = AtomicFile.writeAll(Data((text + "\n").utf8), to: STDERR_FILENO)
  }
}
