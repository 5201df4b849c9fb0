// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  internal import CRetainGraphELF
  internal import RetainGraphSupport

  #if canImport(Glibc)
    internal import Glibc
  #elseif canImport(Musl)
    internal import Musl
  #elseif canImport(Darwin)
    internal import Darwin
  #endif

  /// One image's symbols, read from its `.symtab` in one pass: functions and data, each sorted by
  /// address, the Swift runtime's local symbols looked up by name, and the functions imported through
  /// its global offset table. Addresses are offsets from the image's base (``ELFFile/loadBase``).
  /// The names point into the mapped image, which stays mapped for the process.
  package final class ImageSymbols: @unchecked Sendable {
    /// How the local `STT_OBJECT` symbols that name a noncopyable field type's mangled name start
    /// (`get_type_metadata <mangled type> noncopyable.<n>`): they are kept with the functions, since
    /// the field record's name is a reference to one.
    package static let hiddenTypePrefix = "get_type_metadata "

    /// The functions (`STT_FUNC`, and the hidden-type names above).
    package let functions: SymbolTable
    /// The data (`STT_OBJECT`).
    package let data: SymbolTable
    /// Local symbols looked up by name, as offsets from the base: type metadata demangling cache
    /// variables (`$s…MD`), metadata accessors (`$s…Ma`) and nominal type descriptors (`$s…Mn`).
    package let localSymbols: [String: UInt]
    /// The lowest loaded virtual address (page-aligned): offsets count from it.
    package let loadBase: UInt
    /// The functions imported through the global offset table, by slot (offset from the base).
    private let imports: [UInt: UnsafePointer<CChar>]

    /// No symbols (an image that could not be read).
    package init() {
      functions = SymbolTable(entries: [])
      data = SymbolTable(entries: [])
      localSymbols = [:]
      loadBase = 0
      imports = [:]
    }

    /// The symbols of `file`.
    package init(_ file: ELFFile) {
      let loadBase = file.loadBase
      var functions: [SymbolTable.Entry] = []
      var data: [SymbolTable.Entry] = []
      var localSymbols: [String: UInt] = [:]
      file.forEachSymbol(inSectionsOfType: SHT_SYMTAB) { symbol in
        let name = symbol.name
        let entry = SymbolTable.Entry(start: symbol.value &- loadBase, size: symbol.size, name: name)
        if Self.isRuntimeLocalSymbol(name) { localSymbols[String(cString: name)] = entry.start }
        if symbol.type == STT_OBJECT {
          data.append(entry)
          if strncmp(name, Self.hiddenTypePrefix, Self.hiddenTypePrefix.utf8.count) == 0 {
            functions.append(entry)
          }
        } else if symbol.type == STT_FUNC {
          functions.append(entry)
        }
      }
      var imports: [UInt: UnsafePointer<CChar>] = [:]
      #if arch(x86_64)
        file.forEachDynamicRelocation(ofTypes: [UInt32(R_X86_64_JUMP_SLOT), UInt32(R_X86_64_GLOB_DAT)]) {
          slot, name in
          if slot >= loadBase { imports[slot - loadBase] = name }
        }
      #endif
      self.functions = SymbolTable(entries: functions)
      self.data = SymbolTable(entries: data)
      self.localSymbols = localSymbols
      self.loadBase = loadBase
      self.imports = imports
    }

    /// `$s…MD`, `$s…Ma`, `$s…Mn`.
    private static func isRuntimeLocalSymbol(_ name: UnsafePointer<CChar>) -> Bool {
      guard name[0] == CChar(UInt8(ascii: "$")), name[1] == CChar(UInt8(ascii: "s")) else { return false }
      let length = strlen(name)
      guard length > 4, name[length - 2] == CChar(UInt8(ascii: "M")) else { return false }
      let last = UInt8(bitPattern: name[length - 1])
      return last == UInt8(ascii: "D") || last == UInt8(ascii: "a") || last == UInt8(ascii: "n")
    }

    /// The name of the function imported through the global offset table slot at `offset` (from the
    /// base), nil when no dynamic relocation fills that slot.
    package func importedFunction(atSlot offset: UInt) -> String? {
      imports[offset].map { String(cString: $0) }
    }

    /// Per suffix (`MD`, `Mn`): the local symbols with that suffix by their readable name, made on
    /// first use (a few hundred names per image).
    private let readableNames = ForkSafeMutex<[String: [String: UInt]]>([:])

    /// The offset of the local symbol ending in `suffix` whose name `demangle` (the Swift runtime's
    /// demangler) writes as `readable`: a type mangled inside a larger name uses substitutions of
    /// that name, so its bytes differ from its own symbol's while the readable names are the same.
    package func localSymbol(readablyNamed readable: String, suffix: String, demangle: (String) -> String?)
      -> UInt?
    {
      readableNames.withLock { indices in
        if let index = indices[suffix] { return index[readable] }
        var index: [String: UInt] = [:]
        for (name, offset) in localSymbols where name.hasSuffix(suffix) {
          if let text = demangle(name) { index[text] = offset }
        }
        indices[suffix] = index
        return index[readable]
      }
    }
  }

  /// Symbols sorted by address, looked up by the address they contain.
  package struct SymbolTable: @unchecked Sendable {
    package struct Entry {
      package var start: UInt
      package var size: UInt
      package var name: UnsafePointer<CChar>
    }

    private let starts: [UInt]
    private let sizes: [UInt]
    private let names: [UnsafePointer<CChar>]

    init(entries: [Entry]) {
      // Plain loops and a C sort: this runs on every symbol of an image at its first use, in debug
      // builds too (see `sortedOrder(of:)`).
      var keys: [UInt] = []
      keys.reserveCapacity(entries.count)
      for entry in entries { keys.append(entry.start) }
      var starts: [UInt] = []
      var sizes: [UInt] = []
      var names: [UnsafePointer<CChar>] = []
      starts.reserveCapacity(entries.count)
      sizes.reserveCapacity(entries.count)
      names.reserveCapacity(entries.count)
      for index in sortedOrder(of: keys) {
        starts.append(entries[index].start)
        sizes.append(entries[index].size)
        names.append(entries[index].name)
      }
      self.starts = starts
      self.sizes = sizes
      self.names = names
    }

    /// The symbols whose name `isWanted` accepts (given the C string), with their start offsets, in
    /// address order.
    package func entries(where isWanted: (UnsafePointer<CChar>) -> Bool) -> [(start: UInt, name: String)] {
      var found: [(start: UInt, name: String)] = []
      for index in 0..<names.count where isWanted(names[index]) {
        found.append((starts[index], String(cString: names[index])))
      }
      return found
    }

    /// The start offsets of the symbols at most `size` bytes long.
    package func starts(ofSymbolsUpTo size: UInt) -> [UInt] {
      starts.indices.compactMap { sizes[$0] <= size ? starts[$0] : nil }
    }

    /// The name of the symbol that contains `offset`.
    package func name(at offset: UInt) -> String? {
      index(containing: offset).map { String(cString: names[$0]) }
    }

    /// The start and size of the symbol that contains `offset`.
    package func extent(at offset: UInt) -> (start: UInt, size: UInt)? {
      index(containing: offset).map { (starts[$0], sizes[$0]) }
    }

    /// The last symbol starting at or below `offset`, when it contains `offset`.
    private func index(containing offset: UInt) -> Int? {
      var low = 0
      var high = starts.count
      while low < high {
        let middle = (low + high) / 2
        if starts[middle] <= offset { low = middle + 1 } else { high = middle }
      }
      guard low > 0 else { return nil }
      let index = low - 1
      return offset < starts[index] + sizes[index] ? index : nil
    }
  }
#endif
