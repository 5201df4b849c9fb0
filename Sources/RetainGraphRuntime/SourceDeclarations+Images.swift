// The debug-information half of SourceDeclarations (RetainGraphImages): without the package trait
// `BinaryReaders` every answer is nil, as for a binary without debug information.

internal import RetainGraphSupport

#if BinaryReaders
  internal import RetainGraphImages
#endif

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

extension SourceDeclarations {
  /// The declaration of the closure the walk names `name` (`closure #1 in App.Screen.init()`, as
  /// `SymbolNames.functionName` names a closure's function): its file and line (Swift's debug
  /// information gives no column); nil when the loaded images' debug information does not declare
  /// exactly one place for the closures of that name.
  ///
  /// Looked up as symbolizers do, by address: the closure's symbols are found among the function
  /// symbols of its module (the module's closures are named once per image, the rest never), and
  /// each address leads to its compile unit, whose entries alone are read.
  package static func closure(named name: String) -> Location? {
    #if BinaryReaders
      guard let prefix = mangledPrefix(ofModule: moduleName(ofFunctionNamed: name)) else { return nil }
      var found: [Location] = []
      for image in images() {
        for symbol in closureSymbols(in: image, mangledPrefix: prefix)[name] ?? [] {
          guard
            let declaration = try? image.debugInfo.functionDeclaration(
              at: symbol.start &+ image.symbols.loadBase, linkageNames: linkageNames(of: symbol.name))
          else { continue }
          let location = Location(file: declaration.file, line: declaration.line, column: nil)
          if !found.contains(location) { found.append(location) }
        }
      }
      return found.count == 1 ? found[0] : nil
    #else
      return nil
    #endif
  }

  /// The declaration of the stored property `property` of the type named `typeName` (as
  /// `TypeNames.qualified` names it): the `var` or `let` in the type's body, in a file the debug
  /// information names for the type's functions; nil when the type is local, has no functions the
  /// debug information places, its files cannot be read, or not exactly one declaration matches.
  ///
  /// The type's units are found by address: its nominal type descriptor's symbol (`$s…Mn`) gives
  /// the mangled prefix of its functions' symbols, and their addresses give the units whose type
  /// entries list the files.
  package static func storedProperty(_ property: String, ofType typeName: String) -> Location? {
    #if BinaryReaders
      guard let path = typePath(ofQualifiedName: typeName), let last = path.last else { return nil }
      let wanted = SymbolNames.withoutPrivateDiscriminators(String(typeName.prefix { $0 != "<" }))
      let fragment = "\(last.utf8.count)\(last)"
      var files: [String] = []
      for type in typeFiles(named: wanted, fragment: fragment, module: moduleName(ofFunctionNamed: typeName))
      {
        files += type.files.filter { !files.contains($0) }
      }
      var found: [Location] = []
      for file in files {
        guard let text = sourceText(at: file),
          let position = SwiftSourceScanner.storedProperty(named: property, inType: path, source: text)
        else { continue }
        found.append(Location(file: file, line: position.line, column: position.column))
      }
      return found.count == 1 ? found[0] : nil
    #else
      return nil
    #endif
  }

  /// The module a function or type name (as the walk writes it) is declared in: the first
  /// component after the closures it is nested in (`closure #1 in closure #2 in App.f()` → `App`);
  /// for a member of an extension in another module, the extended type's module.
  package static func moduleName(ofFunctionNamed name: String) -> String {
    var text = Substring(name)
    while ["implicit closure #", "closure #"].contains(where: { text.hasPrefix($0) }),
      let range = text.firstRange(of: " in ")
    {
      text = text[range.upperBound...]
    }
    if text.hasPrefix("(extension in "), let close = text.firstRange(of: "):") {
      text = text[close.upperBound...]
    }
    // The first identifier followed by a dot: words the demangler writes first (`static`,
    // `variable initialization expression of`, `default argument 0 of`) are not the module.
    func isIdentifier(_ character: Character) -> Bool {
      character.isLetter || character.isNumber || character == "_"
    }
    while let start = text.firstIndex(where: isIdentifier) {
      let word = text[start...].prefix(while: isIdentifier)
      let after = text[word.endIndex...]
      if after.hasPrefix("."), word.first?.isNumber == false { return String(word) }
      text = after
    }
    return ""
  }

  /// How the mangled names of a module's declarations start (`$s3App`); nil for the standard
  /// library (`$ss`, whose closures are not the user's to fix) or a name that is not an identifier.
  package static func mangledPrefix(ofModule module: String) -> String? {
    guard !module.isEmpty, module != "Swift", module.utf8.allSatisfy({ $0 < 0x80 }),
      let first = module.utf8.first, !(0x30...0x39).contains(first)
    else { return nil }
    return "$s\(module.utf8.count)\(module)"
  }

  /// The linkage names a closure's symbol may be declared by in the DWARF: its own, and for a
  /// partial apply forwarder (`…TA`) or a merged function (`…Tm`) the function it stands for.
  package static func linkageNames(of symbol: String) -> [String] {
    symbol.hasSuffix("TA") || symbol.hasSuffix("Tm") ? [symbol, String(symbol.dropLast(2))] : [symbol]
  }

  #if BinaryReaders
    /// The loaded images that may hold the program's own debug information: the main program and
    /// every library that is neither the Swift toolchain's nor the system's. Listed anew when the
    /// loader has loaded or unloaded an image since (a plugin opened with `dlopen`).
    private static func images() -> [LoadedImage] {
      let generation = Loader.generation()
      if let known = loadedImages.withLock({ $0 }), known.generation == generation { return known.images }
      var paths: [String] = []
      for segment in Loader.writableSegments() where !paths.contains(segment.path) {
        let path = segment.path
        if path.hasPrefix("/lib") || path.hasPrefix("/usr/lib") || path.contains("/usr/lib/swift/")
          || path.contains("linux-vdso") || path.isEmpty
        {
          continue
        }
        paths.append(path)
      }
      let found = paths.map(ImageCatalogue.image(atPath:))
      loadedImages.withLock { $0 = (generation, found) }
      return found
    }

    private static let loadedImages = ForkSafeMutex<(generation: UInt64, images: [LoadedImage])?>(nil)

    /// Per image (by path) and module (its mangled prefix): the module's closure symbols by the
    /// name the walk gives them (demangled and simplified once, only for that module).
    private static func closureSymbols(in image: LoadedImage, mangledPrefix prefix: String)
      -> [String: [(start: UInt, name: String)]]
    {
      let key = "\(image.path)\u{0}\(prefix)"
      if let known = closureIndex.withLock({ $0[key] }) { return known }
      let wanted = Array(prefix.utf8CString)
      let count = wanted.count - 1
      var index: [String: [(start: UInt, name: String)]] = [:]
      let symbols = image.symbols.functions.entries { strncmp($0, wanted, count) == 0 && isClosureSymbol($0) }
      for symbol in symbols {
        guard let demangled = SymbolNames.demangled(symbol.name) else { continue }
        index[SymbolNames.simplify(demangled), default: []].append(symbol)
      }
      closureIndex.withLock { $0[key] = index }
      return index
    }

    private static let closureIndex = ForkSafeMutex<[String: [String: [(start: UInt, name: String)]]]>([:])

    /// The types named `wanted` (qualified, without generic arguments or private discriminators)
    /// in the loaded images, with the files their functions are declared in: found through their
    /// nominal type descriptors' symbols (`$s…Mn`) and their functions' units; through every unit
    /// only when no image has a descriptor of that name.
    private static func typeFiles(named wanted: String, fragment: String, module: String)
      -> [ImageDebugInfo.TypeFiles]
    {
      let modulePrefix = mangledPrefix(ofModule: module)
      var found: [ImageDebugInfo.TypeFiles] = []
      var sawDescriptor = false
      func isNamed(_ mangled: String, droppingPrefix readablePrefix: String = "") -> Bool {
        guard let demangled = SymbolNames.demangled(mangled), demangled.hasPrefix(readablePrefix) else {
          return false
        }
        let name = demangled.dropFirst(readablePrefix.count).prefix { $0 != "<" }
        return SymbolNames.withoutPrivateDiscriminators(String(name)) == wanted
      }
      for image in images() {
        var prefixes: [[CChar]] = []
        for symbol in image.symbols.localSymbols.keys
        where symbol.hasSuffix("Mn") && symbol.contains(fragment)
          && (modulePrefix.map(symbol.hasPrefix) ?? true)
          && isNamed(symbol, droppingPrefix: "nominal type descriptor for ")
        {
          prefixes.append(Array(String(symbol.dropLast(2)).utf8CString))
        }
        guard !prefixes.isEmpty else { continue }
        sawDescriptor = true
        func hasPrefix(_ name: UnsafePointer<CChar>) -> Bool {
          prefixes.contains { strncmp(name, $0, $0.count - 1) == 0 }
        }
        let starts = image.symbols.functions.entries(where: hasPrefix).map {
          $0.start &+ image.symbols.loadBase
        }
        found += image.debugInfo.typeFiles(inUnitsOfFunctionsAt: starts, where: hasPrefix).filter {
          isNamed($0.mangledName)
        }
      }
      guard !sawDescriptor else { return found }
      for image in images() {
        found += image.debugInfo.typeFiles { strstr($0, fragment) != nil }.filter { isNamed($0.mangledName) }
      }
      return found
    }

    /// Whether a mangled name is a closure's: it has an explicit or implicit closure's operator
    /// (`fU_`, `fU0_`, `fu_`…: `f`, `U` or `u`, digits, `_`).
    private static func isClosureSymbol(_ name: UnsafePointer<CChar>) -> Bool {
      guard name[0] == 0x24 else { return false }  // "$s…"
      var index = 1
      while name[index] != 0 {
        if name[index] == 0x66, name[index + 1] == 0x55 || name[index + 1] == 0x75 {  // "fU", "fu"
          var end = index + 2
          while name[end] >= 0x30, name[end] <= 0x39 { end += 1 }
          if name[end] == 0x5F { return true }  // "_"
        }
        index += 1
      }
      return false
    }
  #endif
}
