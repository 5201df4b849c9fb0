// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  internal import CRetainGraphELF

  #if canImport(Glibc)
    internal import Glibc
  #elseif canImport(Musl)
    internal import Musl
  #elseif canImport(Darwin)
    internal import Darwin
  #endif

  /// Why bytes are not an ELF image this reader understands.
  package enum ELFError: Error, Equatable {
    /// Not `\x7FELF`, not 64-bit, or not little-endian.
    case notELF64
    /// A header table (program or section headers) lies outside the bytes, or its entries are smaller
    /// than the ELF64 header they must hold.
    case truncated(String)
  }

  /// An ELF64 little-endian image's headers, read once from bytes that stay valid while it is used:
  /// its sections (with their names) and the lowest address it loads at. Every read is bounds-checked;
  /// a section whose bytes lie outside the file is kept with an empty range (`bytes(of:)` gives nil).
  package struct ELFFile: @unchecked Sendable {
    /// One section header.
    package struct Section: Sendable {
      /// Its name from the section-name string table; "" when that table cannot be read.
      package var name: String
      /// `sh_type` (`SHT_SYMTAB`, `SHT_DYNSYM`, `SHT_RELA`, `SHT_NOBITS`…).
      package var type: UInt32
      /// `sh_link`: the index of the section it refers to (a symbol table's strings, a relocation
      /// table's symbols).
      package var link: Int
      /// Its bytes' range in the file; nil when they lie outside it or it has none (`SHT_NOBITS`).
      package var range: Range<Int>?
    }

    /// The whole file.
    package let bytes: UnsafeRawBufferPointer
    package let sections: [Section]
    /// The lowest `PT_LOAD` virtual address, page-aligned (0 when there is none): the address that
    /// the loader's base (`dladdr`'s `dli_fbase`) corresponds to. Symbol offsets count from it.
    package let loadBase: UInt

    /// Reads the headers of the ELF64 image in `bytes`.
    /// - Throws: ``ELFError`` when the bytes are not a little-endian ELF64 image or a header table lies
    ///   outside them.
    package init(bytes: UnsafeRawBufferPointer) throws(ELFError) {
      self.bytes = bytes
      let headerSize = MemoryLayout<Elf64_Ehdr>.size
      guard bytes.count >= headerSize, let base = bytes.baseAddress else { throw .notELF64 }
      let header = base.loadUnaligned(as: Elf64_Ehdr.self)
      let isELF64 = withUnsafeBytes(of: header.e_ident) {
        rg_elf_is_elf64_lsb($0.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: UInt8.self)) != 0
      }
      guard isELF64 else { throw .notELF64 }
      loadBase = try Self.loadBase(bytes, header)
      sections = try Self.sections(bytes, header)
    }

    /// The section's bytes, nil when it has none in the file.
    package func bytes(of section: Section) -> UnsafeRawBufferPointer? {
      section.range.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }
    }

    /// The first section named `name`, nil when there is none.
    package func section(named name: String) -> Section? {
      sections.first { $0.name == name }
    }

    /// The section at `index`, nil when there is none.
    package func section(at index: Int) -> Section? {
      sections.indices.contains(index) ? sections[index] : nil
    }

    /// The page-aligned lowest `PT_LOAD` address.
    private static func loadBase(_ bytes: UnsafeRawBufferPointer, _ header: Elf64_Ehdr) throws(ELFError)
      -> UInt
    {
      let entrySize = Int(header.e_phentsize)
      let count = Int(header.e_phnum)
      guard count > 0 else { return 0 }
      let start = Int(clamping: header.e_phoff)
      guard entrySize >= MemoryLayout<Elf64_Phdr>.size,
        contains(bytes, start, entrySize.multipliedReportingOverflow(by: count))
      else { throw .truncated("program headers") }
      var lowest = UInt.max
      for index in 0..<count {
        let program = bytes.loadUnaligned(fromByteOffset: start + index * entrySize, as: Elf64_Phdr.self)
        if program.p_type == UInt32(PT_LOAD) { lowest = min(lowest, UInt(program.p_vaddr)) }
      }
      return lowest == .max ? 0 : lowest & ~UInt(0xFFF)
    }

    /// The section headers, named from the section-name string table (`e_shstrndx`).
    private static func sections(_ bytes: UnsafeRawBufferPointer, _ header: Elf64_Ehdr) throws(ELFError)
      -> [Section]
    {
      let entrySize = Int(header.e_shentsize)
      let count = Int(header.e_shnum)
      guard count > 0 else { return [] }
      let start = Int(clamping: header.e_shoff)
      guard entrySize >= MemoryLayout<Elf64_Shdr>.size,
        contains(bytes, start, entrySize.multipliedReportingOverflow(by: count))
      else { throw .truncated("section headers") }
      let headers = (0..<count).map {
        bytes.loadUnaligned(fromByteOffset: start + $0 * entrySize, as: Elf64_Shdr.self)
      }
      func range(_ section: Elf64_Shdr) -> Range<Int>? {
        let offset = Int(clamping: section.sh_offset)
        let size = Int(clamping: section.sh_size)
        guard section.sh_type != UInt32(SHT_NOBITS), contains(bytes, offset, (size, false)) else {
          return nil
        }
        return offset..<(offset + size)
      }
      let names = Int(header.e_shstrndx) < count ? range(headers[Int(header.e_shstrndx)]) : nil
      return headers.map { section in
        let name = names.flatMap { ELFStrings(bytes: bytes, range: $0).string(at: Int(section.sh_name)) }
        return Section(
          name: name ?? "", type: section.sh_type, link: Int(section.sh_link), range: range(section))
      }
    }

    /// Whether `size` bytes at `offset` lie inside `bytes` (false when the size overflowed).
    static func contains(_ bytes: UnsafeRawBufferPointer, _ offset: Int, _ size: (Int, overflow: Bool))
      -> Bool
    {
      !size.overflow && offset >= 0 && size.0 >= 0 && offset <= bytes.count && size.0 <= bytes.count - offset
    }
  }

  /// A string table (`SHT_STRTAB`): NUL-terminated strings read by offset, never past the table.
  package struct ELFStrings {
    let bytes: UnsafeRawBufferPointer
    let range: Range<Int>

    /// The NUL-terminated string at `offset` in the table, nil when it is not terminated inside it.
    package func cString(at offset: Int) -> UnsafePointer<CChar>? {
      guard offset >= 0, offset < range.count, let base = bytes.baseAddress else { return nil }
      let start = base + range.lowerBound + offset
      guard memchr(start, 0, range.count - offset) != nil else { return nil }
      return start.assumingMemoryBound(to: CChar.self)
    }

    /// The string at `offset`, nil when it is not terminated inside the table.
    package func string(at offset: Int) -> String? {
      cString(at: offset).map { String(cString: $0) }
    }
  }
#endif
