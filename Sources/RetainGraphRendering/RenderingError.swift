/// Graphviz could not lay out or render a graph, or a rendered file could not be written.
///
/// The message quotes what Graphviz said (for example
/// `Graphviz could not read the DOT text: Error: syntax error in line 1 near '->'`).
public struct RenderingError: Error, CustomStringConvertible, Sendable, Equatable {
  /// What went wrong, quoting Graphviz's own messages when it gave any.
  public var message: String

  /// Creates an error with a message that says what went wrong.
  public init(_ message: String) { self.message = message }

  public var description: String { message }
}
