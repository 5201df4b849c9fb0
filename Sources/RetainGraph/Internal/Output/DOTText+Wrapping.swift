/// Labels that stay narrow in a drawing: closure names without their signatures, long names wrapped
/// over a few lines. (The full name stays in the node's tooltip.)
extension DOTText {
  /// The widest line of a wrapped label, in characters.
  static let lineWidth = 24
  /// The most lines of a wrapped label; the last one ends with "…" when the text does not fit.
  static let maximumLines = 3

  /// A closure's name as a short label: `closure #1 in FeatureCoordinator.start(…)` for
  /// `closure #1 in App.FeatureCoordinator.start(animated: Swift.Bool) -> ()`. Parameter lists and
  /// generic arguments become `(…)` and `<…>`, the result type is dropped, and each qualified name
  /// keeps its last two components (three for an accessor such as `Person.greeting.getter`).
  static func closureLabel(_ name: String) -> String {
    guard name.hasPrefix("closure #") || name.hasPrefix("implicit closure #") else { return name }
    // Collapse bracketed parts at depth 0, then drop a result type.
    var collapsed = ""
    var depth = 0
    var opened: Character = "("
    var isEmpty = true
    for character in name {
      switch character {
      case "(", "<", "[":
        if depth == 0 {
          opened = character
          isEmpty = true
        } else {
          isEmpty = false
        }
        depth += 1
      case ")", ">", "]":
        if character == ">", collapsed.hasSuffix(" -"), depth == 0 {
          collapsed.append(character)
          continue
        }
        guard depth > 0 else {
          collapsed.append(character)
          continue
        }
        depth -= 1
        if depth == 0 {
          let close: Character = opened == "(" ? ")" : opened == "<" ? ">" : "]"
          collapsed += isEmpty ? "\(opened)\(close)" : "\(opened)…\(close)"
        } else {
          isEmpty = false
        }
      default:
        if depth == 0 { collapsed.append(character) } else { isEmpty = false }
      }
    }
    if let arrow = collapsed.firstRange(of: " -> ") { collapsed = String(collapsed[..<arrow.lowerBound]) }
    for effect in [" throws", " rethrows", " async"] where collapsed.hasSuffix(effect) {
      collapsed.removeLast(effect.count)
    }
    let accessors: Set<Substring> = ["getter", "setter", "modify", "didset", "willset", "init", "deinit"]
    let words = collapsed.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
      let parts = word.split(separator: ".")
      guard parts.count > 2 else { return String(word) }
      let keep = accessors.contains(parts[parts.count - 1]) ? 3 : 2
      return parts.suffix(keep).joined(separator: ".")
    }
    return words.joined(separator: " ")
  }

  /// `text` over lines of at most ``lineWidth`` characters, broken after spaces, dots, commas and
  /// colons, before `(`, or between the words of a camel-case name; at most ``maximumLines`` lines, the
  /// last ending with "…" when the text is longer. Text that fits on one line is returned as it is.
  static func wrapped(_ text: String) -> String {
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
