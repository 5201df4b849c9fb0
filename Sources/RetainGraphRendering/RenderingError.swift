/// Graphviz could not lay out or render a graph, or a rendered file could not be written.
///
/// The message quotes what Graphviz said (for example
/// `Graphviz could not read the DOT text: Error: syntax error in line 1 near '->'`); ``reason`` says
/// which step failed, as a value a caller can switch on, and ``path`` which file.
public struct RenderingError: Error, CustomStringConvertible, Sendable, Equatable {
  /// Which step failed. New cases may be added in a minor version.
  public enum Reason: String, Sendable, Hashable, CaseIterable {
    /// Graphviz could not read the DOT text (a syntax error, a NUL character).
    case invalidDOT
    /// Graphviz read the graph but could not lay it out.
    case layoutFailed
    /// Graphviz could not render the format (its plugin is missing, or it made no output).
    case renderFailed
    /// Graphviz could not start (no context: its plugins or configuration are missing).
    case graphvizUnavailable
    /// The rendered file could not be written (``path`` says which).
    case fileNotWritten
    /// A mark on an HTML page names a node the graph does not have.
    case unknownNode
    /// An error made from a message alone (``init(_:)``).
    case other
  }

  /// What went wrong, quoting Graphviz's own messages when it gave any.
  public var message: String
  /// Which step failed; ``Reason/other`` for an error made from a message alone.
  public let reason: Reason
  /// The file that could not be written, for ``Reason/fileNotWritten``; nil otherwise.
  public let path: String?

  /// Creates an error with a message that says what went wrong (its reason is ``Reason/other``).
  public init(_ message: String) {
    self.init(.other, message)
  }

  /// Creates an error with the step that failed, the file when one could not be written, and the
  /// message that says what went wrong.
  /// - Parameters:
  ///   - reason: which step failed.
  ///   - path: the file that could not be written.
  ///   - message: what went wrong, in words.
  public init(_ reason: Reason, path: String? = nil, _ message: String) {
    self.message = message
    self.reason = reason
    self.path = path
  }

  public var description: String { message }
}
