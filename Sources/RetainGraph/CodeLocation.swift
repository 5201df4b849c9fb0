/// A place in source code: where the declaration a fix edits is written (the stored property to
/// make `weak`, the closure to capture `[weak self]` in), read from the debug information of the
/// binary that made the graph.
///
/// `file` is relative to the root of the package the file lies in (the nearest directory above it
/// with a `Package.swift`), or absolute when it lies in none. Not named `SourceLocation`: Swift
/// Testing has a type of that name.
public struct CodeLocation: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The file's path: relative to its package's root when it lies in one, otherwise absolute.
  public let file: String
  /// The line, from 1.
  public let line: Int
  /// The column, from 1 (counting UTF-8 bytes, as the compiler's diagnostics do), when known: a
  /// stored property's is its `var` or `let`; Swift's debug information gives a closure's line
  /// only.
  public let column: Int?

  /// Creates a location.
  public init(file: String, line: Int, column: Int? = nil) {
    self.file = file
    self.line = line
    self.column = column
  }

  /// `file:line` or `file:line:column`, as the compiler's diagnostics start.
  public var description: String {
    column.map { "\(file):\(line):\($0)" } ?? "\(file):\(line)"
  }
}
