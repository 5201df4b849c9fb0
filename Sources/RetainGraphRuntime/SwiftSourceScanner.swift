/// Finds a stored property's declaration in Swift source text: the `var` or `let` written directly
/// in the body of a type (a class, struct, enum or actor, or an extension of one: stored properties
/// are declared only in a type's own body, but the type may be nested in an extension of another).
///
/// A small lexer, not a parser: it skips comments (nested `/* */` too), string literals (single
/// line, multi-line, raw `#"…"#`) and character positions inside them, and follows braces. It
/// answers only when exactly one declaration matches; anything it cannot tell apart gives nil.
package enum SwiftSourceScanner {
  /// Where a declaration starts: its line and column (from 1; the column counts UTF-8 bytes, as the
  /// compiler's diagnostics do).
  package struct Position: Sendable, Hashable {
    package var line: Int
    package var column: Int

    package init(line: Int, column: Int) {
      self.line = line
      self.column = column
    }
  }

  /// The position of the `var` or `let` that declares the stored property `name` directly in the
  /// body of the type `typePath` (its name and the names of the types it is nested in, outermost
  /// first: `["Outer", "Inner"]`), in `source`; nil when none or more than one declares it. A
  /// property wrapper's storage (`_name`) and a lazy property's (`$__lazy_storage_$_name`) are found
  /// at the property's declaration.
  package static func storedProperty(named name: String, inType typePath: [String], source: [UInt8])
    -> Position?
  {
    let wanted = declaredName(ofStorage: name)
    var found: [Position] = []
    var lexer = Lexer(source)
    // Each open brace: the type path it opens (nil for any other brace).
    var scopes: [[String]?] = []
    var pendingType: [String]?
    var expectTypeName = false
    var expectPropertyName: Position?
    while let token = lexer.next() {
      switch token.kind {
      case .word(let word):
        if let position = expectPropertyName {
          expectPropertyName = nil
          if word == wanted { found.append(position) }
          continue
        }
        if expectTypeName {
          expectTypeName = false
          if !keywords.contains(word) {
            let enclosing = scopes.last.flatMap { $0 } ?? (scopes.isEmpty ? [] : nil)
            pendingType = enclosing.map { $0 + word.split(separator: ".").map(String.init) }
          }
          continue
        }
        if typeKeywords.contains(word) {
          expectTypeName = true
        } else if declarationKeywords.contains(word) {
          pendingType = nil  // `import class M.T` named no body; a member's body is no type's
          if word == "var" || word == "let", let scope = scopes.last, scope == typePath {
            expectPropertyName = Position(line: token.line, column: token.column)
          }
        }
      case .open:
        scopes.append(pendingType)
        pendingType = nil
        expectTypeName = false
        expectPropertyName = nil
      case .close:
        if !scopes.isEmpty { scopes.removeLast() }
        pendingType = nil
        expectTypeName = false
        expectPropertyName = nil
      case .other:
        expectTypeName = false
        expectPropertyName = nil
      }
    }
    return found.count == 1 ? found[0] : nil
  }

  /// The property a storage name belongs to: `_name` (a property wrapper's or a macro's storage) and
  /// `$__lazy_storage_$_name` (a lazy property's) are declared as `name`.
  static func declaredName(ofStorage name: String) -> String {
    let lazyPrefix = "$__lazy_storage_$_"
    if name.hasPrefix(lazyPrefix) { return String(name.dropFirst(lazyPrefix.count)) }
    if name.hasPrefix("_"), name.count > 1 { return String(name.dropFirst()) }
    return name
  }

  /// Words that open a type's body (an `extension`'s name may be dotted: `extension Outer.Inner`).
  private static let typeKeywords: Set<String> = [
    "class", "struct", "enum", "actor", "extension", "protocol",
  ]
  /// Words that start a declaration other than a type's.
  private static let declarationKeywords: Set<String> = [
    "var", "let", "func", "init", "deinit", "subscript", "import", "typealias", "case",
  ]
  /// Words that may follow `class` without it declaring one (`class func`, `class var`…).
  private static let keywords: Set<String> = [
    "func", "var", "let", "subscript", "init", "deinit", "static", "final", "override", "private",
    "fileprivate", "internal", "public", "open", "convenience", "required", "mutating", "nonmutating",
  ]

  struct Token {
    enum Kind: Equatable {
      case word(String)
      case open
      case close
      case other
    }
    var kind: Kind
    var line: Int
    var column: Int
  }

  /// Splits source text into words (identifiers and keywords, backquoted ones without their quotes,
  /// dotted names as one word), braces and other characters, skipping whitespace, comments and
  /// string literals.
  struct Lexer {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private func peek(_ offset: Int = 0) -> UInt8? {
      index + offset < bytes.count ? bytes[index + offset] : nil
    }

    private mutating func advance() {
      if bytes[index] == UInt8(ascii: "\n") {
        line += 1
        lineStart = index + 1
      }
      index += 1
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
      (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || byte >= 0x80
    }

    mutating func next() -> Token? {
      while let byte = peek() {
        let column = index - lineStart + 1
        let startLine = line
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
          advance()
        case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "/"):
          while let next = peek(), next != UInt8(ascii: "\n") { advance() }
        case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "*"):
          skipBlockComment()
        case UInt8(ascii: "\""):
          skipString()
          return Token(kind: .other, line: startLine, column: column)
        case UInt8(ascii: "#") where startsString():
          skipString()
          return Token(kind: .other, line: startLine, column: column)
        case UInt8(ascii: "{"):
          advance()
          return Token(kind: .open, line: startLine, column: column)
        case UInt8(ascii: "}"):
          advance()
          return Token(kind: .close, line: startLine, column: column)
        case UInt8(ascii: "`"):
          advance()
          let start = index
          while let next = peek(), next != UInt8(ascii: "`"), next != UInt8(ascii: "\n") { advance() }
          let word = String(decoding: bytes[start..<index], as: UTF8.self)
          if peek() == UInt8(ascii: "`") { advance() }
          return Token(kind: .word(word), line: startLine, column: column)
        case _ where Self.isWordByte(byte):
          let start = index
          while let next = peek(),
            Self.isWordByte(next) || (next == UInt8(ascii: ".") && peek(1).map(Self.isWordByte) == true)
          {
            advance()
          }
          return Token(
            kind: .word(String(decoding: bytes[start..<index], as: UTF8.self)), line: startLine,
            column: column)
        default:
          advance()
          return Token(kind: .other, line: startLine, column: column)
        }
      }
      return nil
    }

    /// Whether a string literal starts here: `"`, or `#`s then `"` (a raw string).
    private func startsString() -> Bool {
      var offset = 0
      while peek(offset) == UInt8(ascii: "#") { offset += 1 }
      return peek(offset) == UInt8(ascii: "\"")
    }

    private mutating func skipBlockComment() {
      var depth = 0
      while let byte = peek() {
        if byte == UInt8(ascii: "/"), peek(1) == UInt8(ascii: "*") {
          depth += 1
          advance()
        } else if byte == UInt8(ascii: "*"), peek(1) == UInt8(ascii: "/") {
          depth -= 1
          advance()
          advance()
          if depth == 0 { return }
          continue
        }
        advance()
      }
    }

    /// Skips a string literal: its `#`s, `"` or `"""`, the text (escapes, and interpolations with
    /// their nested parentheses and strings), and the closing delimiter.
    private mutating func skipString() {
      var hashes = 0
      while peek() == UInt8(ascii: "#") {
        hashes += 1
        advance()
      }
      let isMultiline = peek(1) == UInt8(ascii: "\"") && peek(2) == UInt8(ascii: "\"")
      for _ in 0..<(isMultiline ? 3 : 1) { advance() }
      while let byte = peek() {
        if byte == UInt8(ascii: "\n"), !isMultiline { return }
        if byte == UInt8(ascii: "\\"), (0..<hashes).allSatisfy({ peek($0 + 1) == UInt8(ascii: "#") }) {
          for _ in 0...hashes { advance() }
          if peek() == UInt8(ascii: "(") { skipInterpolation() } else if peek() != nil { advance() }
          continue
        }
        if byte == UInt8(ascii: "\""),
          !isMultiline || (peek(1) == UInt8(ascii: "\"") && peek(2) == UInt8(ascii: "\"")),
          (0..<hashes).allSatisfy({ peek($0 + (isMultiline ? 3 : 1)) == UInt8(ascii: "#") })
        {
          for _ in 0..<((isMultiline ? 3 : 1) + hashes) { advance() }
          return
        }
        advance()
      }
    }

    /// Skips an interpolation's `( … )`, with the strings and parentheses inside it.
    private mutating func skipInterpolation() {
      var depth = 0
      while let byte = peek() {
        if byte == UInt8(ascii: "\"") || (byte == UInt8(ascii: "#") && startsString()) {
          skipString()
          continue
        }
        if byte == UInt8(ascii: "(") { depth += 1 }
        if byte == UInt8(ascii: ")") {
          depth -= 1
          if depth == 0 {
            advance()
            return
          }
        }
        advance()
      }
    }
  }
}
