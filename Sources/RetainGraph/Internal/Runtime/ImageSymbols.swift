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

/// The function symbols (or, with `symbolType: 1`, the data symbols) of one ELF image, sorted by
/// address.
final class ImageSymbols: @unchecked Sendable {
  private var starts: [UInt] = []
  private var sizes: [UInt] = []
  private var names: [UnsafePointer<CChar>] = []
  /// Local symbols looked up by name, as offsets from the base: type metadata demangling cache
  /// variables (`$s…MD`), metadata accessors (`$s…Ma`) and nominal type descriptors (`$s…Mn`).
  private(set) var localSymbols: [String: UInt] = [:]
  /// The image stays mapped for the process: the names point into it.
  private var mapping: UnsafeMutableRawPointer?
  /// The ELF symbol type kept: 2 (STT_FUNC) or 1 (STT_OBJECT).
  private let symbolType: UInt8
  /// The lowest loaded virtual address (page-aligned): offsets given to ``name(at:)`` count from it.
  private(set) var loadBase: UInt = 0
  /// The functions imported through the global offset table, by slot (offset from the base): the
  /// dynamic relocations `R_X86_64_JUMP_SLOT` (a PLT stub's slot) and `R_X86_64_GLOB_DAT`.
  private var imports: [UInt: UnsafePointer<CChar>] = [:]

  init(path: String, symbolType: UInt8 = 2) {
    self.symbolType = symbolType
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_size > 64 else { return }
    let length = Int(status.st_size)
    guard let base = mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0), base != MAP_FAILED else {
      return
    }
    mapping = base
    read(UnsafeRawPointer(base), length: length)
  }

  private func read(_ file: UnsafeRawPointer, length: Int) {
    // ELF64, little endian.
    guard file.load(as: UInt32.self) == 0x464C_457F, file.load(fromByteOffset: 4, as: UInt8.self) == 2 else {
      return
    }
    func inBounds(_ offset: Int, _ size: Int) -> Bool { offset >= 0 && size >= 0 && offset + size <= length }
    // The lowest loaded address, which `dladdr`'s base corresponds to.
    let programHeaders = Int(file.loadUnaligned(fromByteOffset: 0x20, as: UInt64.self))
    let programHeaderSize = Int(file.loadUnaligned(fromByteOffset: 0x36, as: UInt16.self))
    let programHeaderCount = Int(file.loadUnaligned(fromByteOffset: 0x38, as: UInt16.self))
    var loadBase = UInt.max
    for index in 0..<programHeaderCount {
      let header = programHeaders + index * programHeaderSize
      guard inBounds(header, 56) else { return }
      if file.loadUnaligned(fromByteOffset: header, as: UInt32.self) == 1 {  // PT_LOAD
        loadBase = min(loadBase, UInt(file.loadUnaligned(fromByteOffset: header + 0x10, as: UInt64.self)))
      }
    }
    if loadBase == .max { loadBase = 0 }
    loadBase &= ~UInt(0xFFF)
    self.loadBase = loadBase

    let sections = Int(file.loadUnaligned(fromByteOffset: 0x28, as: UInt64.self))
    let sectionSize = Int(file.loadUnaligned(fromByteOffset: 0x3A, as: UInt16.self))
    let sectionCount = Int(file.loadUnaligned(fromByteOffset: 0x3C, as: UInt16.self))
    var entries: [(start: UInt, size: UInt, name: UnsafePointer<CChar>)] = []
    for index in 0..<sectionCount {
      let section = sections + index * sectionSize
      // SHT_SYMTAB sections only.
      guard inBounds(section, 64), file.loadUnaligned(fromByteOffset: section + 4, as: UInt32.self) == 2
      else { continue }
      let offset = Int(file.loadUnaligned(fromByteOffset: section + 0x18, as: UInt64.self))
      let size = Int(file.loadUnaligned(fromByteOffset: section + 0x20, as: UInt64.self))
      let link = Int(file.loadUnaligned(fromByteOffset: section + 0x28, as: UInt32.self))
      let stringsSection = sections + link * sectionSize
      guard inBounds(offset, size), inBounds(stringsSection, 64) else { continue }
      let strings = Int(file.loadUnaligned(fromByteOffset: stringsSection + 0x18, as: UInt64.self))
      let stringsSize = Int(file.loadUnaligned(fromByteOffset: stringsSection + 0x20, as: UInt64.self))
      guard inBounds(strings, stringsSize) else { continue }
      for symbol in stride(from: offset, to: offset + size - 23, by: 24) {
        let info = file.load(fromByteOffset: symbol + 4, as: UInt8.self)
        let value = UInt(file.loadUnaligned(fromByteOffset: symbol + 8, as: UInt64.self))
        let symbolSize = UInt(file.loadUnaligned(fromByteOffset: symbol + 16, as: UInt64.self))
        let nameOffset = Int(file.loadUnaligned(fromByteOffset: symbol, as: UInt32.self))
        guard value != 0, symbolSize > 0, nameOffset < stringsSize else { continue }
        let name = (file + strings + nameOffset).assumingMemoryBound(to: CChar.self)
        if symbolType == 2, name[0] == 0x24, name[1] == 0x73 {  // "$s…"
          let length = strlen(name)
          if length > 4, name[length - 2] == 0x4D,  // "M"
            [0x44, 0x61, 0x6E].contains(name[length - 1])  // "D", "a", "n"
          {
            localSymbols[String(cString: name)] = value - loadBase
          }
        }
        // The symbol type asked for; with functions (2), also the STT_OBJECT symbols that name the
        // mangled names of noncopyable field types (see `Metadata.hiddenType(of:)`).
        let type = info & 0xF
        guard
          type == symbolType
            || (symbolType == 2 && type == 1 && strncmp(name, SymbolNames.hiddenTypePrefix, 18) == 0)
        else { continue }
        entries.append((value - loadBase, symbolSize, name))
      }
    }
    readImports(
      file, sections: sections, sectionSize: sectionSize, sectionCount: sectionCount, length: length)
    entries.sort { $0.start < $1.start }
    starts = entries.map(\.start)
    sizes = entries.map(\.size)
    names = entries.map(\.name)
  }

  /// Reads the dynamic relocations that fill the global offset table's slots with imported
  /// functions (SHT_RELA sections linked to the dynamic symbol table, x86_64 only).
  private func readImports(
    _ file: UnsafeRawPointer, sections: Int, sectionSize: Int, sectionCount: Int, length: Int
  ) {
    #if arch(x86_64)
      guard symbolType == 2 else { return }
      func inBounds(_ offset: Int, _ size: Int) -> Bool {
        offset >= 0 && size >= 0 && offset + size <= length
      }
      func header(_ index: Int) -> Int? {
        let header = sections + index * sectionSize
        return index < sectionCount && inBounds(header, 64) ? header : nil
      }
      for index in 0..<sectionCount {
        // SHT_RELA whose linked symbol table is SHT_DYNSYM, whose linked strings are SHT_STRTAB.
        guard let section = header(index),
          file.loadUnaligned(fromByteOffset: section + 4, as: UInt32.self) == 4,
          let symbols = header(Int(file.loadUnaligned(fromByteOffset: section + 0x28, as: UInt32.self))),
          file.loadUnaligned(fromByteOffset: symbols + 4, as: UInt32.self) == 11,
          let strings = header(Int(file.loadUnaligned(fromByteOffset: symbols + 0x28, as: UInt32.self)))
        else { continue }
        let offset = Int(file.loadUnaligned(fromByteOffset: section + 0x18, as: UInt64.self))
        let size = Int(file.loadUnaligned(fromByteOffset: section + 0x20, as: UInt64.self))
        let symbolsOffset = Int(file.loadUnaligned(fromByteOffset: symbols + 0x18, as: UInt64.self))
        let symbolsSize = Int(file.loadUnaligned(fromByteOffset: symbols + 0x20, as: UInt64.self))
        let stringsOffset = Int(file.loadUnaligned(fromByteOffset: strings + 0x18, as: UInt64.self))
        let stringsSize = Int(file.loadUnaligned(fromByteOffset: strings + 0x20, as: UInt64.self))
        guard inBounds(offset, size), inBounds(symbolsOffset, symbolsSize),
          inBounds(stringsOffset, stringsSize)
        else { continue }
        for entry in stride(from: offset, to: offset + size - 23, by: 24) {
          let slot = UInt(file.loadUnaligned(fromByteOffset: entry, as: UInt64.self))
          let info = file.loadUnaligned(fromByteOffset: entry + 8, as: UInt64.self)
          let type = info & 0xFFFF_FFFF
          let symbol = Int(info >> 32) * 24
          guard type == 6 || type == 7, symbol > 0, symbol + 24 <= symbolsSize, slot >= loadBase else {
            continue
          }
          let name = Int(file.loadUnaligned(fromByteOffset: symbolsOffset + symbol, as: UInt32.self))
          guard name > 0, name < stringsSize else { continue }
          imports[slot - loadBase] = (file + stringsOffset + name).assumingMemoryBound(to: CChar.self)
        }
      }
    #endif
  }

  /// The name of the function imported through the global offset table slot at `offset` (from the
  /// base), nil when no dynamic relocation fills that slot.
  func importedFunction(atSlot offset: UInt) -> String? {
    imports[offset].map { String(cString: $0) }
  }

  /// The demangling cache variables' offsets by the readable name of their type, made on first use
  /// (a few hundred names per image).
  private let metadataCaches = ForkSafeMutex<[String: UInt]?>(nil)

  /// The offset of the demangling cache variable for the type readably named `typeName`.
  func metadataCache(forType typeName: String) -> UInt? {
    metadataCaches.withLock { caches in
      if let caches { return caches[typeName] }
      let prefix = "demangling cache variable for type metadata for "
      var made: [String: UInt] = [:]
      for (name, offset) in localSymbols where name.hasSuffix("MD") {
        guard let readable = SymbolNames.demangled(name), readable.hasPrefix(prefix) else { continue }
        made[String(readable.dropFirst(prefix.count))] = offset
      }
      caches = made
      return made[typeName]
    }
  }

  /// The symbols whose mangled name `isWanted` accepts (given the C string), with their start
  /// offsets from the image's base, in address order.
  func entries(where isWanted: (UnsafePointer<CChar>) -> Bool) -> [(start: UInt, name: String)] {
    names.indices.compactMap { isWanted(names[$0]) ? (starts[$0], String(cString: names[$0])) : nil }
  }

  /// The start offsets (from the image's base) of the functions at most `size` bytes long.
  func starts(ofFunctionsUpTo size: UInt) -> [UInt] {
    starts.indices.compactMap { sizes[$0] <= size ? starts[$0] : nil }
  }

  /// The symbol whose function contains `offset` (from the image's base).
  func name(at offset: UInt) -> String? {
    symbol(at: offset).map { String(cString: names[$0.index]) }
  }

  /// The start and size (offsets from the image's base) of the function that contains `offset`.
  func extent(at offset: UInt) -> (start: UInt, size: UInt)? {
    symbol(at: offset).map { (starts[$0.index], sizes[$0.index]) }
  }

  private func symbol(at offset: UInt) -> (index: Int, Void)? {
    var low = 0
    var high = starts.count
    while low < high {
      let middle = (low + high) / 2
      if starts[middle] <= offset { low = middle + 1 } else { high = middle }
    }
    guard low > 0 else { return nil }
    let index = low - 1
    guard offset < starts[index] + sizes[index] else { return nil }
    return (index, ())
  }
}
