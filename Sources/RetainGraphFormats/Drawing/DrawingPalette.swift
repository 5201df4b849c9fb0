/// The colours and the font of every picture, in one place: the DOT writer draws with them and the
/// HTML page's style sheet highlights the drawing with them, and a new format takes them from here
/// (CSS-style `#rrggbb` colours, which Graphviz, SVG, HTML and Mermaid all read).
package struct DrawingPalette: Sendable {
  /// The font of every label.
  package var font = "Helvetica"
  /// A node's fill and outline, and a reference's line.
  package var nodeFill = "#f4f6f8"
  package var nodeOutline = "#4a5866"
  package var reference = "#333333"
  /// A retain cycle: its group, its members' outlines, its strong references, a dangling reference.
  package var cycle = "#cc0000"
  package var cycleFill = "#ffe3e3"
  /// The fills of closure contexts and tasks.
  package var closureFill = "#eef2ff"
  package var taskFill = "#fff4dd"
  /// Weak references, and `unowned(unsafe)` ones (an `unowned` one has the ``reference`` colour).
  package var weak = "#666666"
  package var unownedUnsafe = "#999999"
  /// A `+N more` box: its fill, outline (and the line to it) and text.
  package var collapsedFill = "#eeeeee"
  package var collapsedOutline = "#999999"
  package var collapsedText = "#666666"
  /// The notes box: fill, outline (and the lines to it), text.
  package var noteFill = "#fff8e1"
  package var noteOutline = "#b58900"
  package var noteText = "#5c4400"
  /// The placeholder of a dangling reference (outlined in the ``cycle`` colour).
  package var danglingFill = "#ffd6d6"
  /// On the HTML page: the nodes a search matches and the path to a clicked node.
  package var highlight = "#0a6cff"
  /// On the HTML page: the nodes marked (`--mark`).
  package var mark = "#d97706"

  /// The palette every picture uses.
  package static let standard = DrawingPalette()
}
