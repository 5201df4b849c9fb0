/// Escaping of text for Mermaid's flowchart language, so that any type name or label, however
/// hostile, reaches Mermaid as exactly one quoted string, shown as written.
///
/// Mermaid reads `%%{…}%%` anywhere in a diagram as a directive (which can change its
/// configuration), `#…;` as an entity, `<…>` and `&…;` as HTML, a backtick as the start of
/// Markdown, `"` as the end of the string, and `|` as the end of a link's label. Brackets,
/// parentheses, braces and `;` are only text inside a quoted string: they stay. Each is written as one of Mermaid's
/// entity codes (`#37;` for `%`, `#34;` for `"`, `#60;` for `<`), which it draws as the character; line breaks
/// become `<br>`, the one line break Mermaid draws in a label.
package enum MermaidText {
  /// The characters written as entity codes, and their codes.
  package static let codes: [Unicode.Scalar: String] = [
    "\"": "#34;", "#": "#35;", "%": "#37;", "&": "#38;", "<": "#60;", ">": "#62;", "`": "#96;",
    "|": "#124;", "\\": "#92;",
  ]

  /// `text` as a quoted Mermaid string, escaped (see ``MermaidText``).
  package static func quoted(_ text: String) -> String {
    var result = "\""
    var afterReturn = false
    for scalar in text.unicodeScalars {
      defer { afterReturn = scalar == "\r" }
      if scalar == "\n" {
        if !afterReturn { result += "<br>" }
        continue
      }
      if scalar == "\r" {
        result += "<br>"
        continue
      }
      if let code = codes[scalar] {
        result += code
      } else if scalar.value < 0x20 || scalar.value == 0x7F {
        // Control characters: their visible picture (U+2400…), as in DOT.
        result.unicodeScalars.append(
          Unicode.Scalar(0x2400 + (scalar.value == 0x7F ? 0x21 : scalar.value)) ?? "?")
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }

  /// `text` for a `%%` comment: one line, with no `%`, `{` or `}` (a directive cannot start in it).
  package static func comment(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "%": result += "#37;"
      case "{": result += "#123;"
      case "}": result += "#125;"
      case "\n", "\r": result += " "
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }
}
