package import Foundation
internal import RetainGraph

/// A known-cycles file (`.retain-graph-known.json`): the cycles a team has accepted for now, each by
/// its signature (``RetainGraph/CycleSignature``), with the reason and an optional expiry day. The
/// assertions and `retain-graph check` pass on a cycle it lists, fail on one it does not list and on
/// one whose entry expired (saying the entry's reason), and say which entries no longer occur.
///
/// The file, written by `retain-graph baseline` (entries sorted by signature, keys sorted):
/// ```
/// {
///   "knownCycles" : [
///     {
///       "expires" : "2027-03-31",
///       "fix" : "make Interactor.output weak",
///       "reason" : "the VIPER module is rewritten in Q1",
///       "signature" : "3f0c2e8a1b5d7c94",
///       "types" : [ "Interactor", "Presenter" ]
///     }
///   ],
///   "version" : 1
/// }
/// ```
/// `signature` and `reason` are required, `expires` (an ISO 8601 day, `YYYY-MM-DD`: the entry holds
/// through that day, UTC) is optional; `types` and `fix` only say what the cycle is, for the reader.
package struct KnownCycles: Sendable, Hashable {
  /// The name of the file at a package's root.
  package static let fileName = ".retain-graph-known.json"
  /// The version this reader reads and the writer writes.
  package static let version = 1

  /// One accepted cycle.
  package struct Entry: Sendable, Hashable {
    /// ``RetainGraph/CycleSignature``'s description: 16 hexadecimal digits.
    package var signature: String
    /// Why the cycle is accepted: the failure message says it when the entry has expired.
    package var reason: String
    /// The last day (`YYYY-MM-DD`, UTC) the entry holds; nil: it does not expire.
    package var expires: String?
    /// The cycle's types, for the reader.
    package var types: [String]
    /// The cycle's first fix, for the reader.
    package var fix: String?
    /// The line of the file the entry starts on (0 for an entry not read from a file).
    package var line: Int = 0

    package init(
      signature: String, reason: String, expires: String? = nil, types: [String] = [], fix: String? = nil,
      line: Int = 0
    ) {
      self.signature = signature
      self.reason = reason
      self.expires = expires
      self.types = types
      self.fix = fix
      self.line = line
    }

    /// Whether the entry no longer holds on `today` (`YYYY-MM-DD`): ISO days compare as text.
    package func hasExpired(on today: String) -> Bool {
      guard let expires else { return false }
      return today > expires
    }
  }

  /// The file the entries were read from, as given (for messages).
  package var path: String
  package var entries: [Entry]

  package init(path: String, entries: [Entry]) {
    self.path = path
    self.entries = entries
  }

  /// The day of `date` in UTC, `YYYY-MM-DD`.
  package static func day(of date: Date) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    let year = parts.year ?? 1970
    let month = parts.month ?? 1
    let day = parts.day ?? 1
    return "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
  }

  /// The known-cycles file of the package a source file is in: `.retain-graph-known.json` in the
  /// nearest directory above `sourceFile` that holds a `Package.swift` (the package root), when that
  /// directory has one; nil otherwise.
  /// - Parameter sourceFile: a path (a test's `#filePath`).
  /// - Returns: the file's path, or nil.
  package static func packageFile(above sourceFile: String) -> String? {
    var directory = URL(fileURLWithPath: sourceFile).deletingLastPathComponent()
    let files = FileManager.default
    while directory.path != "/" && !directory.path.isEmpty {
      if files.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
        let known = directory.appendingPathComponent(fileName).path
        return files.fileExists(atPath: known) ? known : nil
      }
      directory = directory.deletingLastPathComponent()
    }
    return nil
  }
}
