internal import Foundation
internal import RetainGraphSupport
internal import Synchronization

/// A word of global storage that equals a live object's address.
package struct GlobalReference: Sendable, Hashable {
  /// The object's address.
  package var object: UInt
  /// The holder as a person writes it (`ImageCache.shared`, `registry`), or a description of
  /// where the word is when no symbol names it.
  package var name: String
  /// Whether the word is a variable whose type can hold a reference; false when it may merely be
  /// a number equal to the address.
  package var isVerified: Bool
}

/// Finds global holders: scans the writable segments of every loaded image for words equal to
/// live object addresses and names them from the images' symbol tables.
package enum GlobalReferences {
  /// The global words equal to an address `isWanted` accepts, named, sorted by name.
  package static func find(where isWanted: (UInt) -> Bool) -> [GlobalReference] {
    let hits = GlobalStorage.scan(GlobalStorage.segments(), isWanted: isWanted)
    var found: [GlobalReference] = []
    for hit in hits {
      let symbol = GlobalStorage.symbol(containing: hit.wordAddress, in: hit.segment)
      found.append(describe(symbol, hit: hit))
    }
    return found.sorted { ($0.name, $0.object) < ($1.name, $1.object) }
  }

  /// A global variable read with its declared type, and how it holds its object.
  package struct TypedVariable {
    /// The variable as a person writes it (`ImageCache.shared`).
    package var name: String
    /// The value: an object, or an array of objects.
    package var value: Any
    /// True for weak storage (the word is the object's side table); else false, for a strong
    /// reference (the symbol does not say whether a global is `unowned`).
    package var isWeak: Bool
  }

  /// Global variables whose objects the census may not have seen allocated (made before it
  /// started): variables of a class type, an optional of one or an array of one, each with its
  /// name. The symbol says the type but not the ownership, so nothing is read by the declared type
  /// until the word is known to fit it: a word that is an object's side table is weak storage,
  /// loaded as the runtime loads a weak reference; a word must otherwise be an instance of the
  /// declared class (an array's, a class instance), every word on the way read without faulting.
  /// Other words (storage bridged from C, a lazy global not yet initialised, an `unowned(unsafe)`
  /// reference to a freed object) are not read: the census compares them with its objects'
  /// addresses instead (``find(where:)``).
  package static func typedVariables() -> [TypedVariable] {
    var found: [TypedVariable] = []
    GlobalStorage.variables(GlobalStorage.segments()) { address, symbol in
      guard let variable = variable(named: symbol), let pointer = UnsafeRawPointer(bitPattern: address),
        let word = ReadableMemory.word(at: address), word != 0
      else { return }
      if let object = ReadableMemory.word(at: word), let bits = ReadableMemory.word(at: object &+ 8),
        bits >> 62 == 0b11, (bits & ~(UInt(0b11) << 62)) << 3 == word
      {
        // Weak storage: the word is the side table of the object its first word names.
        guard !variable.isArray, case .alive(let loaded) = ReferenceLoader.load(.weak, at: pointer) else {
          return
        }
        found.append(TypedVariable(name: variable.name, value: loaded.takeRetainedValue(), isWeak: true))
        return
      }
      if variable.isArray {
        // An array's buffer is a class instance (its storage class, or the empty array's).
        guard let metadata = ReadableMemory.word(at: word), ReadableMemory.word(at: metadata) == 0 else {
          return
        }
        found.append(
          TypedVariable(
            name: variable.name, value: Existential.load(variable.type, from: pointer), isWeak: false))
        return
      }
      // An object of the declared class (a freed one's memory may still say so), whose reference
      // counts, when they name a side table, name one that names it back.
      guard ReadableMemory.isInstance(at: word, of: Metadata.pointer(of: variable.element)),
        let counts = ReadableMemory.word(at: word &+ 8),
        counts >> 62 != 0b11 || ReadableMemory.word(at: (counts & ~(UInt(0b11) << 62)) << 3) == word,
        let object = UnsafeRawPointer(bitPattern: word).flatMap(ReferenceLoader.retainedObject(at:))
      else { return }
      found.append(TypedVariable(name: variable.name, value: object, isWeak: false))
    }
    return found.sorted { $0.name < $1.name }
  }

  private static let variables = ForkSafeMutex<[String: VariableType?]>([:])

  private struct VariableType: @unchecked Sendable {
    var name: String
    /// The declared type.
    var type: any Any.Type
    /// The class of the object (or of the array's elements).
    var element: any Any.Type
    var isArray: Bool
  }

  /// The name and type of a Swift global variable's storage symbol, when its type is one the
  /// census reads (a class, an optional of one, an array of one); cached per symbol.
  private static func variable(named symbol: String) -> VariableType? {
    if let known = variables.withLock({ $0[symbol] }) { return known }
    var result: VariableType?
    if let demangled = demangle(symbol), let colon = demangled.range(of: " : ") {
      var name = Substring(demangled[..<colon.lowerBound])
      if name.hasPrefix("static ") { name = name.dropFirst("static ".count) }
      let typeText = String(demangled[colon.upperBound...])
      if let type = readableType(typeText) {
        result = VariableType(
          name: withoutModule(name), type: type.type, element: type.element, isArray: type.isArray)
      }
    }
    variables.withLock { $0[symbol] = result }
    return result
  }

  private static func readableType(_ text: String) -> (
    type: any Any.Type, element: any Any.Type, isArray: Bool
  )? {
    func classType(_ name: Substring) -> (any Any.Type)? {
      guard !name.contains("<"), !name.contains("("), let type = _typeByName(String(name)),
        Metadata.kind(of: type) == .class
      else { return nil }
      return type
    }
    func arrayType<T>(_: T.Type) -> any Any.Type { [T].self }
    func optionalType<T>(_: T.Type) -> any Any.Type { T?.self }
    // The demangler writes `Swift.Array<T>` and `Swift.Optional<T>` (sugar too, in some forms).
    for (prefix, suffix) in [("Swift.Array<", ">"), ("[", "]")]
    where text.hasPrefix(prefix) && text.hasSuffix(suffix) && !text.contains(":") {
      return classType(text.dropFirst(prefix.count).dropLast(suffix.count)).map { (arrayType($0), $0, true) }
    }
    for (prefix, suffix) in [("Swift.Optional<", ">"), ("", "?")]
    where text.hasPrefix(prefix) && text.hasSuffix(suffix) {
      return classType(text.dropFirst(prefix.count).dropLast(suffix.count)).map {
        (optionalType($0), $0, false)
      }
    }
    return classType(Substring(text)).map { ($0, $0, false) }
  }

  private static func describe(_ symbol: String?, hit: GlobalStorage.Hit) -> GlobalReference {
    let image = (hit.segment.path as NSString).lastPathComponent
    guard let symbol else {
      return GlobalReference(
        object: hit.value, name: "a word in \(image)'s writable data (no symbol names it)", isVerified: false)
    }
    let demangled = demangle(symbol) ?? symbol
    // Swift variable storage: `…vp` (global or static stored property), `…vpZ` (static).
    let isVariable = symbol.hasPrefix("$s") && (symbol.hasSuffix("vp") || symbol.hasSuffix("vpZ"))
    guard isVariable else {
      return GlobalReference(object: hit.value, name: "\(demangled) (in \(image))", isVerified: false)
    }
    var name = Substring(demangled)
    var type = ""
    if let colon = name.range(of: " : ") {
      type = String(name[colon.upperBound...])
      name = name[..<colon.lowerBound]
    }
    if name.hasPrefix("static ") { name = name.dropFirst("static ".count) }
    let scalars: Set<String> = [
      "Swift.Int", "Swift.UInt", "Swift.Int64", "Swift.UInt64", "Swift.Double", "Swift.Float",
      "Swift.Bool", "Swift.Int32", "Swift.UInt32",
    ]
    let canHoldReference = !scalars.contains(type)
    return GlobalReference(
      object: hit.value, name: withoutModule(name) + (canHoldReference ? "" : " (a \(type))"),
      isVerified: canHoldReference)
  }

  /// `App.ImageCache.shared` → `ImageCache.shared`; `App.registry` → `registry`; a private
  /// global, `Foundation.(_defaultCenter in _D7F0…)` → `_defaultCenter`.
  private static func withoutModule(_ name: Substring) -> String {
    var name = name
    if let dot = name.firstIndex(of: ".") { name = name[name.index(after: dot)...] }
    var text = String(name)
    while let open = text.range(of: "("),
      let marker = text.range(of: " in _", range: open.upperBound..<text.endIndex),
      let close = text.range(of: ")", range: marker.upperBound..<text.endIndex)
    {
      text.replaceSubrange(
        open.lowerBound..<close.upperBound, with: text[open.upperBound..<marker.lowerBound])
    }
    return text
  }

  private typealias Demangle =
    @convention(c) (
      UnsafePointer<CChar>, Int, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Int>?, UInt32
    ) -> UnsafeMutablePointer<CChar>?
  private static let demangler = RuntimeSymbols.function("swift_demangle", as: Demangle.self)

  private static func demangle(_ symbol: String) -> String? {
    guard let demangler else { return nil }
    return symbol.withCString { raw in
      guard let text = demangler(raw, strlen(raw), nil, nil, 0) else { return nil }
      defer { free(text) }
      return String(cString: text)
    }
  }
}
