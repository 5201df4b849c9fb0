// The readers are built with the package trait BinaryReaders only (Package.swift).
#if BinaryReaders
  import CRetainGraphELF
  import RetainGraphImages

  /// Little-endian bytes, appended field by field.
  struct Bytes {
    var data: [UInt8] = []

    mutating func append<T: FixedWidthInteger>(_ value: T) {
      withUnsafeBytes(of: value.littleEndian) { data += $0 }
    }

    mutating func uleb(_ value: UInt64) {
      var value = value
      repeat {
        var byte = UInt8(value & 0x7F)
        value >>= 7
        if value != 0 { byte |= 0x80 }
        data.append(byte)
      } while value != 0
    }

    mutating func cString(_ text: String) {
      data += Array(text.utf8) + [0]
    }

    mutating func raw<T>(_ value: T) {
      withUnsafeBytes(of: value) { data += $0 }
    }

    var count: Int { data.count }
  }

  /// A small ELF64 image made in the test: its sections (with a section-name table made for them),
  /// one `PT_LOAD` program header, and a way to read it as an `ELFFile` from memory the test owns.
  struct SyntheticELF {
    struct Section {
      var name: String
      var type: Int32
      var bytes: [UInt8]
      /// The index of the linked section (strings of a symbol table, symbols of a relocation table).
      var link = 0
      var entrySize = 0
    }

    var sections: [Section] = []
    /// The `PT_LOAD` segment's virtual address.
    var loadAddress: UInt64 = 0x40_1000

    /// Adds a section and returns its index (index 0 is the null section).
    @discardableResult mutating func add(_ section: Section) -> Int {
      sections.append(section)
      return sections.count
    }

    /// A symbol table's bytes: the null symbol, then each (name offset, info, value, size).
    static func symbols(_ entries: [(name: UInt32, info: UInt8, value: UInt64, size: UInt64)]) -> [UInt8] {
      var bytes = Bytes()
      bytes.raw(Elf64_Sym())
      for entry in entries {
        var symbol = Elf64_Sym()
        symbol.st_name = entry.name
        symbol.st_info = entry.info
        symbol.st_value = entry.value
        symbol.st_size = entry.size
        bytes.raw(symbol)
      }
      return bytes.data
    }

    /// A string table's bytes and each string's offset.
    static func strings(_ texts: [String]) -> (bytes: [UInt8], offsets: [String: UInt32]) {
      var bytes = Bytes()
      bytes.data = [0]
      var offsets: [String: UInt32] = [:]
      for text in texts {
        offsets[text] = UInt32(bytes.count)
        bytes.cString(text)
      }
      return (bytes.data, offsets)
    }

    /// The whole file: header, program header, section bytes, section names, section headers.
    var bytes: [UInt8] {
      let (names, nameOffsets) = Self.strings(sections.map(\.name) + [".shstrtab"])
      var file = Bytes()
      var header = Elf64_Ehdr()
      withUnsafeMutableBytes(of: &header.e_ident) { identity in
        identity[0] = 0x7F
        identity[1] = UInt8(ascii: "E")
        identity[2] = UInt8(ascii: "L")
        identity[3] = UInt8(ascii: "F")
        identity[Int(EI_CLASS)] = UInt8(ELFCLASS64)
        identity[Int(EI_DATA)] = UInt8(ELFDATA2LSB)
        identity[Int(EI_VERSION)] = UInt8(EV_CURRENT)
      }
      header.e_type = UInt16(ET_DYN)
      header.e_machine = UInt16(EM_X86_64)
      header.e_version = UInt32(EV_CURRENT)
      header.e_ehsize = UInt16(MemoryLayout<Elf64_Ehdr>.size)
      header.e_phoff = UInt64(MemoryLayout<Elf64_Ehdr>.size)
      header.e_phentsize = UInt16(MemoryLayout<Elf64_Phdr>.size)
      header.e_phnum = 1
      header.e_shentsize = UInt16(MemoryLayout<Elf64_Shdr>.size)
      header.e_shnum = UInt16(sections.count + 2)
      header.e_shstrndx = UInt16(sections.count + 1)
      // Section bytes after the headers, then the names; the section headers last.
      var offset = MemoryLayout<Elf64_Ehdr>.size + MemoryLayout<Elf64_Phdr>.size
      var offsets: [Int] = []
      for section in sections {
        offsets.append(offset)
        offset += section.bytes.count
      }
      let namesOffset = offset
      offset += names.count
      header.e_shoff = UInt64(offset)
      file.raw(header)
      var program = Elf64_Phdr()
      program.p_type = UInt32(PT_LOAD)
      program.p_flags = UInt32(PF_R | PF_X)
      program.p_vaddr = loadAddress
      program.p_memsz = 0x1000
      program.p_filesz = 0x1000
      file.raw(program)
      for section in sections { file.data += section.bytes }
      file.data += names
      file.raw(Elf64_Shdr())
      for (index, section) in sections.enumerated() {
        var sectionHeader = Elf64_Shdr()
        sectionHeader.sh_name = nameOffsets[section.name] ?? 0
        sectionHeader.sh_type = UInt32(section.type)
        sectionHeader.sh_offset = UInt64(offsets[index])
        sectionHeader.sh_size = UInt64(section.bytes.count)
        sectionHeader.sh_link = UInt32(section.link)
        sectionHeader.sh_entsize = UInt64(section.entrySize)
        file.raw(sectionHeader)
      }
      var namesHeader = Elf64_Shdr()
      namesHeader.sh_name = nameOffsets[".shstrtab"] ?? 0
      namesHeader.sh_type = UInt32(SHT_STRTAB)
      namesHeader.sh_offset = UInt64(namesOffset)
      namesHeader.sh_size = UInt64(names.count)
      file.raw(namesHeader)
      return file.data
    }
  }

  /// Bytes that stay at one address while a reader keeps pointers into them (what it reads owns
  /// one of these, as the catalogue's readers own their mapped files).
  final class OwnedBytes: @unchecked Sendable {
    private let buffer: UnsafeMutableRawBufferPointer
    let count: Int

    init(_ bytes: [UInt8]) {
      buffer = .allocate(byteCount: max(bytes.count, 1), alignment: 16)
      buffer.copyBytes(from: bytes)
      count = bytes.count
    }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: buffer[..<count]) }

    deinit { buffer.deallocate() }
  }

  /// DWARF sections made in a test, as a section source.
  final class SyntheticSections: DWARFSectionSource {
    private var sections: [String: OwnedBytes] = [:]

    init(_ sections: [String: [UInt8]]) {
      self.sections = sections.mapValues(OwnedBytes.init)
    }

    func dwarfSection(named name: String) -> UnsafeRawBufferPointer? {
      sections[name]?.bytes
    }
  }
#endif
