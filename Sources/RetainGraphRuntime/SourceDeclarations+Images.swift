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
  /// information gives no column); nil when no loaded image's debug information declares exactly one
  /// closure of that name.
  package static func closure(named name: String) -> Location? {
    #if BinaryReaders
      let found = images().flatMap { closures(in: $0)[name] ?? [] }
      guard let first = found.first, found.allSatisfy({ $0 == first }) else { return nil }
      return first
    #else
      return nil
    #endif
  }

  /// The declaration of the stored property `property` of the type named `typeName` (as
  /// `TypeNames.qualified` names it): the `var` or `let` in the type's body, in a file the debug
  /// information names for the type's functions; nil when the type is local, has no functions the
  /// debug information places, its files cannot be read, or not exactly one declaration matches.
  package static func storedProperty(_ property: String, ofType typeName: String) -> Location? {
    #if BinaryReaders
      guard let path = typePath(ofQualifiedName: typeName), let last = path.last else { return nil }
      let wanted = typeName.prefix { $0 != "<" }
      let fragment = "\(last.utf8.count)\(last)"
      var files: [String] = []
      for image in images() {
        let types = image.debugInfo.typeFiles { strstr($0, fragment) != nil }
        for type in types {
          guard let demangled = SymbolNames.demangled(type.mangledName),
            SymbolNames.withoutPrivateDiscriminators(String(demangled.prefix { $0 != "<" }))
              == SymbolNames.withoutPrivateDiscriminators(String(wanted))
          else { continue }
          files += type.files.filter { !files.contains($0) }
        }
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

    /// Per image (by path): each closure's name, as the walk names it, and its declarations.
    private static func closures(in image: LoadedImage) -> [String: [Location]] {
      if let known = closureIndex.withLock({ $0[image.path] }) { return known }
      var index: [String: [Location]] = [:]
      for declaration in image.debugInfo.functionDeclarations(where: isClosureSymbol) {
        guard let demangled = SymbolNames.demangled(declaration.mangledName) else { continue }
        let location = Location(file: declaration.file, line: declaration.line, column: nil)
        index[SymbolNames.simplify(demangled), default: []].append(location)
      }
      closureIndex.withLock { $0[image.path] = index }
      return index
    }

    private static let closureIndex = ForkSafeMutex<[String: [String: [Location]]]>([:])

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
