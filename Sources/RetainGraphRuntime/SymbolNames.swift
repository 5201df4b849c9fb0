internal import Foundation
internal import RetainGraphSupport
internal import Synchronization

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// Names functions from the ELF symbol tables of the loaded images, so that closures, which are
/// local symbols `dladdr` cannot see, get their real name (`closure #1 in Person.greeting.getter`).
/// Each image is read once, through `ImageCatalogue` (RetainGraphImages), in
/// `SymbolNames+Images.swift`, the one file that asks the images (nil there in a build without the
/// trait `BinaryReaders`); this file demangles and simplifies what they answer.
package enum SymbolNames {
  private typealias Demangle =
    @convention(c) (
      UnsafePointer<CChar>, Int, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Int>?, UInt32
    ) -> UnsafeMutablePointer<CChar>?
  private static let demangle: Demangle? =
    RuntimeSymbols.function("swift_demangle", as: Demangle.self)

  /// The demangled, simplified name of the function that starts at `address`, when a symbol table
  /// has it.
  package static func functionName(at address: UnsafeRawPointer) -> String? {
    let key = UInt(bitPattern: address)
    if let known = functionNames.withLock({ $0[key] }) { return known }
    let name: String?
    if let symbol = symbolName(at: address) {
      name = symbol.withCString { readable($0) }
    } else if let function = asyncFunction(pointedToBy: address), let symbol = symbolName(at: function) {
      name = symbol.withCString { readable($0) }
    } else {
      name = nil
    }
    functionNames.withLock { $0[key] = .some(name) }
    return name
  }

  /// `functionName(at:)`'s answers by address: the same for the process's life (a task or a closure
  /// per object would otherwise demangle and simplify its function's name each time).
  private static let functionNames = ForkSafeMutex<[UInt: String?]>([:])

  /// `symbol` demangled, without simplification.
  package static func demangled(_ symbol: String) -> String? {
    guard let demangle else { return nil }
    return symbol.withCString { text in
      guard let result = demangle(text, strlen(text), nil, nil, 0) else { return nil }
      defer { free(result) }
      return String(cString: result)
    }
  }

  private static func readable(_ symbol: UnsafePointer<CChar>) -> String? {
    guard let demangle, let demangled = demangle(symbol, strlen(symbol), nil, nil, 0) else { return nil }
    defer { free(demangled) }
    return simplify(String(cString: demangled))
  }

  /// `closure #1 () -> Swift.String in App.Person.greeting.getter : () -> Swift.String` →
  /// `closure #1 in App.Person.greeting.getter`. What an optimised build adds is dropped too, so
  /// that a function has one name in debug and release builds: the wrappers (`partial apply
  /// forwarder for `, `merged `), the specialisations (`generic specialization <Swift.Int> of `,
  /// `generic not re-abstracted specialization <…> of `, `function signature specialization <…>
  /// of `…) and the suffix LLVM gives a copy (` with unmangled suffix ".20"`).
  package static func simplify(_ name: String) -> String {
    var text = Substring(name)
    if let suffix = text.range(of: " with unmangled suffix \"", options: .backwards), text.hasSuffix("\"") {
      text = text[..<suffix.lowerBound]
    }
    while let wrapper = wrapperLength(text) { text = text.dropFirst(wrapper) }
    var prefix = ""
    // Each closure's own signature sits between its number and " in " (outside brackets: a
    // private type in the signature reads `(Box in _D7F0…)`); closures nest.
    while let closureKind = ["implicit closure #", "closure #"].first(where: { text.hasPrefix($0) }),
      let inRange = outermost(" in ", in: text)
    {
      let number = text.dropFirst(closureKind.count).prefix { $0.isNumber }
      prefix += "\(closureKind)\(number) in "
      text = text[inRange.upperBound...]
    }
    if let colon = outermost(" : ", in: text) { text = text[..<colon.lowerBound] }
    return withoutPrivateDiscriminators(prefix + text)
  }

  /// A private declaration's name without its discriminator, as it is written:
  /// `App.CartViewModel.(handlePrices in _C654A129CC2DF9B3)(_: [App.Price])` →
  /// `App.CartViewModel.handlePrices(_: [App.Price])`.
  package static func withoutPrivateDiscriminators(_ name: String) -> String {
    guard name.contains(" in _") else { return name }
    var result = ""
    var rest = Substring(name)
    while let open = rest.firstIndex(of: "(") {
      result += rest[..<open]
      let inside = rest[rest.index(after: open)...]
      let identifier = inside.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
      let afterIdentifier = inside.dropFirst(identifier.count)
      if !identifier.isEmpty, afterIdentifier.hasPrefix(" in _") {
        let discriminator = afterIdentifier.dropFirst(5).prefix { $0.isLetter || $0.isNumber }
        let afterDiscriminator = afterIdentifier.dropFirst(5 + discriminator.count)
        if !discriminator.isEmpty, afterDiscriminator.hasPrefix(")") {
          result += identifier
          rest = afterDiscriminator.dropFirst()
          continue
        }
      }
      result.append("(")
      rest = inside
    }
    return result + rest
  }

  /// The length of the wrapper or specialisation that `text` starts with, nil when none does.
  private static func wrapperLength(_ text: Substring) -> Int? {
    for wrapper in ["partial apply forwarder for ", "merged "] where text.hasPrefix(wrapper) {
      return wrapper.count
    }
    // `<kind> specialization <arguments> of `, the arguments bracket-balanced.
    guard let specialization = text.range(of: "specialization <"),
      !text[..<specialization.lowerBound].contains(where: { !$0.isLetter && $0 != " " && $0 != "-" }),
      let of = outermost(" of ", in: text[text.index(before: specialization.upperBound)...])
    else { return nil }
    return text.distance(from: text.startIndex, to: of.upperBound)
  }

  /// The first occurrence of `separator` in `text` outside parentheses, brackets and angle brackets
  /// (the `>` of an arrow `->` does not close one).
  private static func outermost(_ separator: String, in text: Substring) -> Range<Substring.Index>? {
    var depth = 0
    var previous: Character = " "
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      switch character {
      case "(", "[", "<": depth += 1
      case ")", "]": depth -= 1
      case ">" where previous != "-": depth -= 1
      default:
        if depth == 0, text[index...].hasPrefix(separator) {
          return index..<text.index(index, offsetBy: separator.count)
        }
      }
      previous = character
      index = text.index(after: index)
    }
    return nil
  }
}
