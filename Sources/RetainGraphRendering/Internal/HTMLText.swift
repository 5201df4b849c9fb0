internal import Foundation

/// Escaping for text put into an HTML page.
enum HTMLText {
  /// `text` safe as an element's content or a quoted attribute's value: `&`, `<`, `>`, `"` and `'`
  /// become character references.
  static func escaped(_ text: String) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "'": result += "&#39;"
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// `text` as a JSON string literal that is also safe inside a `<script>` element: besides JSON's
  /// own escapes, `<`, `>` and `&` are written `\u003c`, `\u003e`, `\u0026` (so no `</script>` or
  /// `<!--` can appear), U+2028 and U+2029 `\u2028`, `\u2029` (line breaks to older JavaScript),
  /// and the byte order mark `\ufeff`.
  static func jsonString(_ text: String) -> String {
    var result = "\""
    result.reserveCapacity(text.utf8.count + 2)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      // U+FEFF too: invisible, and some JSON readers drop it.
      case "<", ">", "&", "\u{2028}", "\u{2029}", "\u{FEFF}": result += unicodeEscape(scalar.value)
      default:
        if scalar.value < 0x20 || scalar.value == 0x7F {
          result += unicodeEscape(scalar.value)
        } else {
          result.unicodeScalars.append(scalar)
        }
      }
    }
    return result + "\""
  }

  /// `\uXXXX` for a scalar of the Basic Multilingual Plane.
  private static func unicodeEscape(_ value: UInt32) -> String {
    let hex = String(value, radix: 16)
    return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
  }

  /// Graphviz's SVG document without what only a standalone file needs (the XML declaration, the
  /// DOCTYPE and the comments before the `<svg>` element), to put inline in the page.
  static func inlineSVG(_ svg: String) -> String {
    guard let start = svg.range(of: "<svg") else { return svg }
    return String(svg[start.lowerBound...]).trimmingTrailingNewlines()
  }
}

extension String {
  fileprivate func trimmingTrailingNewlines() -> String {
    var text = Substring(self)
    while text.last?.isNewline == true { text.removeLast() }
    return String(text)
  }
}
