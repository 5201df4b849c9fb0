internal import Foundation
internal import RetainGraphSupport

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

extension KnownCycles {
  /// Which entries of the known-cycles files the checks of this process matched: an entry no check
  /// matched in a run of the whole suite names a cycle that no longer occurs, and the file can lose
  /// it. A check's own verdict never says so (the file lists the cycles of every test, so one test
  /// not finding an entry's cycle says nothing), and a passing test prints nothing.
  ///
  /// `RETAIN_GRAPH_KNOWN_UNUSED=1` prints, at the process's exit, to standard error, the entries of
  /// each file a check used that no check matched (``unusedReport()``). With `RETAIN_GRAPH_LEAKS=1`
  /// too, it is printed after the leak report at exit, so that the cycles that report matched count.
  package enum Usage {
    /// The environment variable, and the value that turns it on.
    package static let variable = "RETAIN_GRAPH_KNOWN_UNUSED"

    private struct Record {
      /// The files checks used, as first given, in that order.
      var files: [String] = []
      /// The signatures matched in each file, by its standardised path.
      var matched: [String: Set<String>] = [:]
      var exitHandlerRegistered = false
      var printed = false
    }

    private static let record = ForkSafeMutex(Record())

    /// One key per file however its path is written.
    private static func key(_ path: String) -> String {
      URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// Whether `RETAIN_GRAPH_KNOWN_UNUSED=1` asks for the listing at exit.
    static var isAsked: Bool { getenv(variable).map { String(cString: $0) == "1" } ?? false }

    /// Counts the file at `path` as used by a check (once asked for, the listing at exit is
    /// registered with the first).
    /// - Parameter path: the file.
    package static func consulted(_ path: String) {
      let key = key(path)
      let register = record.withLock { record -> Bool in
        if record.matched[key] == nil {
          record.matched[key] = []
          record.files.append(path)
        }
        guard isAsked, !record.exitHandlerRegistered else { return false }
        record.exitHandlerRegistered = true
        return true
      }
      if register { atexit { KnownCycles.Usage.atExit() } }
    }

    /// Counts `signatures` as matched in the file at `path`.
    /// - Parameters:
    ///   - signatures: the entries' signatures (16 hexadecimal digits).
    ///   - path: the file.
    package static func matched(_ signatures: [String], in path: String) {
      let key = key(path)
      record.withLock { $0.matched[key, default: []].formUnion(signatures) }
    }

    /// The lines that say which entries of the file at `path` no check of this process matched
    /// (in ``KnownCycles/Verdict/lines(noun:goneWhere:)``'s words), or why it cannot be read.
    /// - Parameter path: a file a check used.
    /// - Returns: the lines, a headline first.
    package static func unusedLines(of path: String) -> [String] {
      let matched = record.withLock { $0.matched[key(path)] ?? [] }
      let known: KnownCycles
      do {
        known = try KnownCycles.read(at: path)
      } catch {
        return ["\(variable): \(error)"]
      }
      var verdict = Verdict(path: path)
      verdict.gone = known.entries.filter { !matched.contains($0.signature) }
      let count = known.entries.count == 1 ? "1 entry" : "\(known.entries.count) entries"
      guard !verdict.gone.isEmpty else {
        return ["\(variable): every entry of \(path) (\(count)) matched a check in this process"]
      }
      let headline =
        "\(variable): \(verdict.gone.count) of \(count) of \(path) matched no check in this process "
        + "(the checks of tests that did not run in it match none)"
      return [headline] + verdict.lines(goneWhere: " by a check in this process")
    }

    /// ``unusedLines(of:)`` of every file a check used, a blank line between two; nil when no check
    /// used one.
    package static func unusedReport() -> String? {
      let files = record.withLock { $0.files }
      guard !files.isEmpty else { return nil }
      return files.map { unusedLines(of: $0).joined(separator: "\n") }.joined(separator: "\n\n")
    }

    /// Prints ``unusedReport()`` to standard error, once, when `RETAIN_GRAPH_KNOWN_UNUSED=1` asks for
    /// it: at exit (the leak report at exit calls it after its own).
    package static func printUnusedIfAsked() {
      guard isAsked else { return }
      let first = record.withLock { record -> Bool in
        defer { record.printed = true }
        return !record.printed
      }
      guard first, let report = unusedReport() else { return }
      FileHandle.standardError.write(Data((report + "\n").utf8))
    }

    /// The exit handler: with `RETAIN_GRAPH_LEAKS=1` the leak report at exit runs after it (its
    /// handler was registered first) and prints the listing once it has matched its cycles.
    private static func atExit() {
      if getenv("RETAIN_GRAPH_LEAKS").map({ String(cString: $0) == "1" }) == true { return }
      printUnusedIfAsked()
    }
  }
}
