internal import Foundation
package import RetainGraphImages
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
/// Each image is read once, through `ImageCatalogue` (RetainGraphImages).
package enum SymbolNames {
  /// How the local symbols that name a noncopyable field type's mangled name start.
  package static let hiddenTypePrefix = ImageSymbols.hiddenTypePrefix

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

  /// The function that the async function pointer starting exactly at `address` points to, when a
  /// data symbol `$s…Tu` ("async function pointer to …") starts there; nil otherwise, so that a word
  /// that is not one is never read. An async function pointer is a 32-bit offset from itself to the
  /// function, then the size of the function's async context (include/swift/ABI/Task.h,
  /// `AsyncFunctionPointer`).
  package static func asyncFunction(pointedToBy address: UnsafeRawPointer) -> UnsafeRawPointer? {
    guard let (image, base) = ImageCatalogue.image(containing: address) else { return nil }
    let data = image.symbols.data
    let offset = UInt(bitPattern: address) &- UInt(bitPattern: base)
    guard let extent = data.extent(at: offset), extent.start == offset, extent.size >= 8,
      let name = data.name(at: offset), name.hasPrefix("$s"), name.hasSuffix("Tu")
    else { return nil }
    return address + Int(address.load(as: Int32.self))
  }

  /// The address of the data symbol (`STT_OBJECT`, local or global) named `name` exactly, e.g. an
  /// async function pointer `$s…Tu`, in the image that contains `address`; nil when it has none.
  package static func dataSymbol(named name: String, inImageContaining address: UnsafeRawPointer)
    -> UnsafeRawPointer?
  {
    ImageCatalogue.dataSymbol(named: name, inImageContaining: address)
  }

  /// The address of the local symbol `name` (a demangling cache variable `$s…MD`, a metadata
  /// accessor `$s…Ma` or a type descriptor `$s…Mn`) of the image that contains `address`.
  package static func localSymbol(named name: String, inImageContaining address: UnsafeRawPointer)
    -> UnsafeRawPointer?
  {
    guard let (image, base) = ImageCatalogue.image(containing: address),
      let offset = image.symbols.localSymbols[name]
    else { return nil }
    return base + Int(offset)
  }

  /// The address of the local symbol ending in `suffix` (`MD`, `Mn`) of the image that contains
  /// `address` whose name `swift_demangle` writes as `readable` (private types with their
  /// discriminator). A type mangled inside a larger name uses substitution indices of that name
  /// (`AF` for the third module mentioned), so the same type alone has other bytes: the readable
  /// name is the same in both.
  package static func localSymbol(
    readablyNamed readable: String, suffix: String, inImageContaining address: UnsafeRawPointer
  ) -> UnsafeRawPointer? {
    guard let (image, base) = ImageCatalogue.image(containing: address),
      let offset = image.symbols.localSymbol(readablyNamed: readable, suffix: suffix, demangle: demangled)
    else { return nil }
    return base + Int(offset)
  }

  /// The address of the demangling cache variable (`$s…MD`) of the image that contains `address`
  /// for the type whose readable name is `typeName` (see `localSymbol(readablyNamed:suffix:…)`).
  package static func metadataCache(forType typeName: String, inImageContaining address: UnsafeRawPointer)
    -> UnsafeRawPointer?
  {
    localSymbol(
      readablyNamed: "demangling cache variable for type metadata for " + typeName, suffix: "MD",
      inImageContaining: address)
  }

  /// The raw (mangled) name of the symbol whose function contains `address`, from the dynamic
  /// symbol table or, for local symbols, the image's `.symtab`.
  package static func symbolName(at address: UnsafeRawPointer) -> String? {
    ImageCatalogue.symbolName(at: address)
  }

  /// The functions an optimised build inlined into the function that starts at `address`, named
  /// (demangled, not simplified), from the image's DWARF (`ImageDebugInfo`, read once per image on
  /// first use); empty when the image has no debug information.
  package static func inlinedFunctions(ofFunctionAt address: UnsafeRawPointer) -> [String] {
    guard let (debugInfo, start) = debugInfo(at: address) else { return [] }
    return debugInfo.inlinedFunctions(at: start).compactMap(demangled)
  }

  /// The async-context offsets of the variables whose lifetime ended before their function was
  /// suspended at the partial function that starts at `address` (`ImageDebugInfo.deadFrameOffsets`);
  /// empty when the image has no debug information for it.
  package static func deadFrameOffsets(resumingAt address: UnsafeRawPointer) -> Set<Int> {
    guard let (debugInfo, start) = debugInfo(at: address) else { return [] }
    return debugInfo.deadFrameOffsets(resumingAt: start)
  }

  /// The async-context offsets of every variable of the async function that the partial function
  /// at `address` belongs to (`ImageDebugInfo.frameOffsets`); nil without debug information for it.
  package static func frameOffsets(ofFunctionResumingAt address: UnsafeRawPointer) -> Set<Int>? {
    guard let (debugInfo, start) = debugInfo(at: address) else { return nil }
    return debugInfo.frameOffsets(ofFunctionResumingAt: start)
  }

  /// The debug information of the image that holds `address` and the address as its DWARF names it.
  private static func debugInfo(at address: UnsafeRawPointer) -> (ImageDebugInfo, UInt)? {
    ImageCatalogue.debugInfo(at: address)
  }

  /// The function symbols of the image that contains `address`, and its base.
  package static func image(containing address: UnsafeRawPointer) -> (SymbolTable, UnsafeRawPointer)? {
    ImageCatalogue.image(containing: address).map { ($0.image.symbols.functions, $0.base) }
  }

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
