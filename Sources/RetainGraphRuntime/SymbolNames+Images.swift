// The one file of RetainGraphRuntime that asks the loaded images for symbols and debug information
// (RetainGraphImages): the seam a platform without an image reader builds without (the package
// trait `BinaryReaders` off). There every answer is "not known" (nil or empty), and the walk notes
// what that leaves out (`GraphNote.Kind.unnamedFunctions`).

#if BinaryReaders
  package import RetainGraphImages
#endif

extension SymbolNames {
  /// Whether this build reads the loaded images' symbol tables and debug information (the package
  /// trait `BinaryReaders`, on by default). Without it no function is named from a symbol table, no
  /// local or data symbol is found and no debug information is read.
  package static var readsImages: Bool {
    #if BinaryReaders
      return true
    #else
      return false
    #endif
  }

  #if BinaryReaders
    /// How the local symbols that name a noncopyable field type's mangled name start.
    package static let hiddenTypePrefix = ImageSymbols.hiddenTypePrefix

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

    /// Reads (once for the process) the symbols of the image that contains `address`: called before
    /// a fork, so that the forked child, which names closures with them, and the parent, which
    /// looks up their fixes' locations with them, share one reading (a child's is lost with it).
    package static func loadSymbols(ofImageContaining address: UnsafeRawPointer) {
      _ = ImageCatalogue.image(containing: address)
    }

    /// The function symbols of the image that contains `address`, and its base.
    package static func image(containing address: UnsafeRawPointer) -> (SymbolTable, UnsafeRawPointer)? {
      ImageCatalogue.image(containing: address).map { ($0.image.symbols.functions, $0.base) }
    }
  #else
    /// ImageSymbols' prefix (no symbol is found here to carry it).
    package static let hiddenTypePrefix = "get_type_metadata "

    package static func asyncFunction(pointedToBy address: UnsafeRawPointer) -> UnsafeRawPointer? { nil }

    package static func dataSymbol(named name: String, inImageContaining address: UnsafeRawPointer)
      -> UnsafeRawPointer?
    { nil }

    package static func localSymbol(named name: String, inImageContaining address: UnsafeRawPointer)
      -> UnsafeRawPointer?
    { nil }

    package static func localSymbol(
      readablyNamed readable: String, suffix: String, inImageContaining address: UnsafeRawPointer
    ) -> UnsafeRawPointer? { nil }

    package static func metadataCache(forType typeName: String, inImageContaining address: UnsafeRawPointer)
      -> UnsafeRawPointer?
    { nil }

    package static func symbolName(at address: UnsafeRawPointer) -> String? { nil }

    package static func loadSymbols(ofImageContaining address: UnsafeRawPointer) {}

    package static func inlinedFunctions(ofFunctionAt address: UnsafeRawPointer) -> [String] { [] }

    package static func deadFrameOffsets(resumingAt address: UnsafeRawPointer) -> Set<Int> { [] }

    package static func frameOffsets(ofFunctionResumingAt address: UnsafeRawPointer) -> Set<Int>? { nil }
  #endif
}
