// TEMPORARY (branch diag2 only): a copy of the lead's `CodeLocation` API (branch `lead`), so that the
// diagnostics compile before it lands. Deleted when `lead` is merged; never landed.

/// Where a declaration is in the source (temporary copy of the lead's declaration).
public struct CodeLocation: Sendable, Hashable, CustomStringConvertible {
  /// Relative to the package root when under it, else absolute.
  public let file: String
  /// 1-based.
  public let line: Int
  /// 1-based, when known.
  public let column: Int?

  /// Creates a location.
  /// - Parameters:
  ///   - file: the file's path.
  ///   - line: the line, from 1.
  ///   - column: the column, from 1, when known.
  public init(file: String, line: Int, column: Int? = nil) {
    self.file = file
    self.line = line
    self.column = column
  }

  /// `file:line` or `file:line:column`.
  public var description: String { "\(file):\(line)" + (column.map { ":\($0)" } ?? "") }
}

extension Cycle.Break {
  /// Where the declaration to change is (temporary copy: always nil until the lead's lands).
  public var location: CodeLocation? { nil }
}
