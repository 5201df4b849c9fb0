/// Labels that stay narrow in a drawing: long names wrapped over a few lines. (The full name stays
/// in the node's tooltip; a closure's label is its name as the fix lines write it,
/// `Advice.closureName`.) A line break is `\n` in the text: each format writes it its own way.
extension DrawingLabel {
  /// The widest line of a wrapped label, in characters.
  package static let lineWidth = 24
  /// The most lines of a wrapped label; the last one ends with "…" when the text does not fit.
  package static let maximumLines = 3

  /// `text` over lines of at most ``lineWidth`` characters, broken after spaces, dots, commas and
  /// colons, before `(`, or between the words of a camel-case name; at most ``maximumLines`` lines, the
  /// last ending with "…" when the text is longer. Text that fits on one line is returned as it is.
  package static func wrapped(_ text: String) -> String {
    guard text.count > lineWidth, !text.contains("\n") else { return text }
    var lines: [String] = []
    var line = ""
    for piece in pieces(of: text) {
      if line.count + piece.count > lineWidth, !line.isEmpty {
        lines.append(line)
        line = ""
      }
      var rest = Substring(piece)
      while rest.count > lineWidth {
        lines.append(String(rest.prefix(lineWidth)))
        rest = rest.dropFirst(lineWidth)
      }
      line += rest
    }
    if !line.isEmpty { lines.append(line) }
    lines = lines.map { $0.hasSuffix(" ") ? String($0.dropLast()) : $0 }
    if lines.count > maximumLines {
      lines = Array(lines.prefix(maximumLines))
      lines[maximumLines - 1] = String(lines[maximumLines - 1].prefix(lineWidth - 1)) + "…"
    }
    return lines.joined(separator: "\n")
  }

  /// The pieces a label may be broken between: after spaces, dots, commas and colons, and before `(`;
  /// a piece longer than a line is split between the words of its camel-case name.
  private static func pieces(of text: String) -> [String] {
    var pieces: [String] = []
    var current = ""
    func flush() {
      if current.count > lineWidth {
        pieces += camelCaseWords(of: current)
      } else if !current.isEmpty {
        pieces.append(current)
      }
      current = ""
    }
    for character in text {
      if character == "(" { flush() }
      current.append(character)
      if " .,:<".contains(character) { flush() }
    }
    flush()
    return pieces
  }

  /// `word` split before each upper-case letter that follows a lower-case one.
  private static func camelCaseWords(of word: String) -> [String] {
    var words: [String] = []
    var current = ""
    var previous: Character?
    for character in word {
      if character.isUppercase, previous?.isLowercase ?? false, !current.isEmpty {
        words.append(current)
        current = ""
      }
      current.append(character)
      previous = character
    }
    if !current.isEmpty { words.append(current) }
    return words
  }
}
