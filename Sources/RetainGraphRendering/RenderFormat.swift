/// An output format of ``Graphviz/render(dot:format:)`` and `ObjectGraph.render(_:style:)`.
public enum RenderFormat: String, Sendable, Hashable, CaseIterable {
  /// Scalable Vector Graphics: XML text, opens in any browser; node tooltips show full type names.
  case svg
  /// A PNG bitmap (through Graphviz's cairo plugin).
  case png
  /// A one-page PDF document (through Graphviz's cairo plugin).
  case pdf

  /// The usual file name extension, without the dot.
  public var fileExtension: String { rawValue }
}
