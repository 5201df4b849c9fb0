internal import CRetainGraphCensus
internal import Foundation

#if canImport(Glibc)
  internal import Glibc
#endif

extension HeapCensus {
  /// The signal ``installDumpHandler(signal:directory:timeBudget:onDump:)`` listens to unless
  /// told otherwise: `SIGUSR2`.
  public static let defaultDumpSignal: Int32 = SIGUSR2

  /// Writes a census dump (``writeDump(to:timeBudget:)``) to `directory` whenever the process
  /// gets `signal`, without stopping it: `kill -USR2 <pid>` on a running service.
  ///
  /// ```swift
  /// HeapCensus.start()
  /// try HeapCensus.installDumpHandler(directory: "/var/tmp/dumps")
  /// // $ kill -USR2 <pid>; …; kill -USR2 <pid>
  /// // $ retain-graph diff /var/tmp/dumps/census-dump-<pid>-1.json /var/tmp/dumps/census-dump-<pid>-2.json
  /// ```
  /// The files are numbered in the order the dumps are taken: `census-dump-<pid>-<n>.json`, from 1.
  /// The signal handler only writes a byte to a pipe (async-signal-safe); a background thread reads
  /// it and writes the dump (the leak count and the retainer searches run in forked children).
  /// Signals that arrive while a dump is being written are taken together as one more dump.
  /// Installing again for the same signal replaces the directory (the earlier thread ends).
  /// - Parameters:
  ///   - signal: the signal (`SIGUSR2` by default); its earlier handler is replaced, and it is
  ///     unblocked in the calling thread and the dump thread (a process may inherit it blocked).
  ///   - directory: an existing directory the dumps are written to.
  ///   - timeBudget: as in ``writeDump(to:timeBudget:)``: nil for ``dumpTimeBudget`` at each dump.
  ///   - onDump: called on the background thread after each dump: the file written, or why none was.
  /// - Throws: ``CensusDumpError/cannotWrite(path:reason:)`` when `directory` is not a directory,
  ///   ``CensusDumpError/cannotInstallHandler(_:)`` when the pipe, the thread or the handler could not
  ///   be set up.
  public static func installDumpHandler(
    signal: Int32 = defaultDumpSignal, directory: String, timeBudget: Duration? = nil,
    onDump: (@Sendable (Result<String, CensusDumpError>) -> Void)? = nil
  ) throws(CensusDumpError) {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
    else { throw .cannotWrite(path: directory, reason: "no such directory") }
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else {
      throw .cannotInstallHandler("pipe: \(String(cString: strerror(errno)))")
    }
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    let (readEnd, writeEnd) = (fds[0], fds[1])
    let thread = Thread {
      DumpHandlerLoop(
        descriptor: readEnd, directory: directory, timeBudget: timeBudget, onDump: onDump
      ).run()
    }
    thread.name = "RetainGraph census dumps (signal \(signal))"
    let previous = rgc_install_signal_pipe(signal, writeEnd)
    guard previous != -2 else {
      let reason = String(cString: strerror(errno))
      close(readEnd)
      close(writeEnd)
      throw .cannotInstallHandler("sigaction(\(signal)): \(reason)")
    }
    thread.start()
    // The earlier handler's thread reads end-of-file and ends.
    if previous >= 0 { close(previous) }
  }
}

/// The background thread of ``HeapCensus/installDumpHandler(signal:directory:timeBudget:onDump:)``:
/// one dump per read of the pipe.
private struct DumpHandlerLoop: Sendable {
  var descriptor: Int32
  var directory: String
  var timeBudget: Duration?
  var onDump: (@Sendable (Result<String, CensusDumpError>) -> Void)?

  func run() {
    var number = 0
    var bytes = [UInt8](repeating: 0, count: 64)
    while true {
      let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { break }
      number += 1
      let path = URL(fileURLWithPath: directory).appendingPathComponent(
        "census-dump-\(getpid())-\(number).json"
      )
      .path
      do throws(CensusDumpError) {
        try HeapCensus.writeDump(to: path, timeBudget: timeBudget)
        onDump?(.success(path))
      } catch {
        onDump?(.failure(error))
      }
    }
    close(descriptor)
  }
}
