// The parser's identifiers, words and substitutions (see MangledTypeReader.swift).

extension MangledTypeReader.Parser {
  /// Demangler::demangleIdentifier: plain, or with word substitutions after a `0`; the words of
  /// each literal part are recorded (at least two characters, split at `_` and at a capital
  /// after a non-capital). Punycode (`00`) is not read.
  package mutating func identifier() -> Bool {
    var hasWordSubstitutions = false
    if peek() == UInt8(ascii: "0") {
      position += 1
      if peek() == UInt8(ascii: "0") { return false }
      hasWordSubstitutions = true
    }
    var name = ""
    repeat {
      while hasWordSubstitutions, let byte = peek(), Self.isLower(byte) || Self.isUpper(byte) {
        position += 1
        let index = Int(Self.isLower(byte) ? byte - 97 : byte - 65)
        if Self.isUpper(byte) { hasWordSubstitutions = false }
        guard index < words.count else { return false }
        name += words[index]
      }
      if nextIf("0") { break }
      guard let count = natural(), count > 0, position + count <= text.count else { return false }
      let slice = Array(text[position..<(position + count)])
      name += String(decoding: slice, as: UTF8.self)
      recordWords(slice)
      position += count
    } while hasWordSubstitutions
    guard !name.isEmpty else { return false }
    stack.append(.identifier(name))
    substitutions.append(.identifier(name))
    return true
  }

  package mutating func recordWords(_ slice: [UInt8]) {
    var start: Int?
    for index in 0...slice.count {
      let byte: UInt8 = index < slice.count ? slice[index] : 0
      if let wordStart = start {
        let previous = slice[index - 1]
        let isEnd =
          byte == UInt8(ascii: "_") || byte == 0 || (!Self.isUpper(previous) && Self.isUpper(byte))
        if isEnd {
          if index - wordStart >= 2 && words.count < 26 {
            words.append(String(decoding: slice[wordStart..<index], as: UTF8.self))
          }
          start = nil
        }
      }
      if start == nil, byte != 0, byte != UInt8(ascii: "_"), !Self.isDigit(byte) { start = index }
    }
  }

  /// Demangler::demangleMultiSubstitutions.
  package mutating func multiSubstitution() -> Bool {
    var repeatCount = -1
    while let byte = next() {
      if Self.isLower(byte) || Self.isUpper(byte) {
        let index = Int(Self.isLower(byte) ? byte - 97 : byte - 65)
        guard index < substitutions.count, repeatCount <= 2_048 else { return false }
        for _ in 0..<max(repeatCount, 1) { stack.append(substitutions[index]) }
        if Self.isUpper(byte) { return true }
        repeatCount = -1
        continue
      }
      if byte == UInt8(ascii: "_") {
        let index = repeatCount + 27
        guard repeatCount >= 0, index < substitutions.count else { return false }
        stack.append(substitutions[index])
        return true
      }
      position -= 1
      guard let count = natural() else { return false }
      repeatCount = count
    }
    return false
  }

  /// Demangler::demangleStandardSubstitution: `So` (the `__C` module), `Sg` (an optional of the
  /// type before), or a standard type (`Si`, second level `ScT`), with an optional repeat count.
  package mutating func standardSubstitution() -> Bool {
    if nextIf("o") {
      push(.module("__C"), substitution: false)
      return true
    }
    if nextIf("g") {
      guard let wrapped = popType() else { return false }
      push(.bound(.standard("Sq"), levels: [[wrapped]]), substitution: true)
      return true
    }
    let count = natural() ?? 1
    let secondLevel = nextIf("c")
    guard let letter = next(), Self.isLower(letter) || Self.isUpper(letter), count <= 64 else {
      return false
    }
    let text = "S" + (secondLevel ? "c" : "") + String(UnicodeScalar(letter))
    for _ in 0..<count { push(.standard(text), substitution: false) }
    return true
  }
}
