/// Quoting and escaping of text for the DOT language, so that any type name or label, however hostile,
/// reaches Graphviz as exactly one quoted string and comes out of it (as SVG, PNG or PDF) unchanged.
package enum DOTText {
  /// `text` as a quoted DOT string, escaped for use as a label.
  ///
  /// - `"` and `\` are escaped (a lone `\` would start a Graphviz escape such as `\N`).
  /// - Line breaks become `\n` (a centred line break); tabs become spaces.
  /// - `<`, `>`, `{`, `}` and `|` are escaped, so labels stay literal even in record shapes.
  /// - Control characters become their visible Unicode "control picture" (U+2400…), and the
  ///   non-characters U+FFFE and U+FFFF become U+FFFD: none of them may appear in SVG (XML) output.
  /// - An `&` that starts something shaped like an entity (`&amp;`, `&#38;`, `&x;`) is followed by
  ///   an invisible U+2060 WORD JOINER, since Graphviz would otherwise decode it or copy it raw into
  ///   the SVG.
  /// Non-ASCII text is kept as UTF-8 (the graph declares `charset="UTF-8"`).
  package static func quoted(_ text: String) -> String {
    var result = "\""
    result.reserveCapacity(text.utf8.count + 2)
    let scalars = Array(text.unicodeScalars)
    var index = 0
    while index < scalars.count {
      let scalar = scalars[index]
      let next = index + 1 < scalars.count ? scalars[index + 1] : nil
      index += 1
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\r":
        if next != "\n" { result += "\\n" }
      case "\n": result += "\\n"
      case "\t": result += " "
      case "<", ">", "{", "}", "|":
        result += "\\"
        result.unicodeScalars.append(scalar)
      case "&":
        result += "&"
        if let next, next == "#" || next == ";" || next.properties.isAlphabetic {
          result += "\u{2060}"
        }
      default:
        result.unicodeScalars.append(visible(scalar))
      }
    }
    result += "\""
    return result
  }

  private static func visible(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
    switch scalar.value {
    case 0x00...0x1F: Unicode.Scalar(0x2400 + scalar.value) ?? "\u{FFFD}"
    case 0x7F: "\u{2421}"
    case 0x80...0x9F, 0xFFFE, 0xFFFF: "\u{FFFD}"
    default: scalar
    }
  }
}
