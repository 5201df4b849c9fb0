// The readers are built with the package trait BinaryReaders only (Package.swift).
#if BinaryReaders
  import CRetainGraphELF
  import Foundation
  import RetainGraphImages
  import Testing

  /// The ELF reader on images made in the test: headers, section names, symbols, imports, and inputs
  /// cut short or lying about their sizes (each gives an error or nothing, never a crash).
  struct ELFFileTests {
    /// An image with a symbol table (a function, a data symbol, a noncopyable field type's name, a
    /// Swift runtime local symbol, and symbols the reader skips), dynamic symbols and a relocation.
    static func image() -> SyntheticELF {
      var elf = SyntheticELF()
      let (strings, offsets) = SyntheticELF.strings([
        "main", "$s4main5ValueVMn", "counter", "get_type_metadata 15Synchronization5MutexVySiG noncopyable.1",
        "zeroSized", "$s4main3FooCMa",
      ])
      let function = UInt8(STB_GLOBAL << 4) | UInt8(STT_FUNC)
      let object = UInt8(STB_LOCAL << 4) | UInt8(STT_OBJECT)
      let symbols = SyntheticELF.symbols([
        (offsets["main"] ?? 0, function, 0x40_1100, 0x40),
        (offsets["$s4main5ValueVMn"] ?? 0, object, 0x40_2000, 0x1C),
        (offsets["counter"] ?? 0, object, 0x40_3000, 8),
        (
          offsets["get_type_metadata 15Synchronization5MutexVySiG noncopyable.1"] ?? 0, object, 0x40_2100,
          0x10
        ),
        (offsets["zeroSized"] ?? 0, function, 0x40_1200, 0),  // no size: skipped
        (offsets["$s4main3FooCMa"] ?? 0, function, 0x40_1180, 0x20),
        (9999, function, 0x40_1300, 0x10),  // a name outside the strings: skipped
      ])
      let strtab = elf.add(.init(name: ".strtab", type: SHT_STRTAB, bytes: strings))
      elf.add(.init(name: ".symtab", type: SHT_SYMTAB, bytes: symbols, link: strtab, entrySize: 24))
      // The dynamic symbols and a relocation filling a GOT slot with `swift_retain`.
      let (dynamicStrings, dynamicOffsets) = SyntheticELF.strings(["swift_retain"])
      let dynstr = elf.add(.init(name: ".dynstr", type: SHT_STRTAB, bytes: dynamicStrings))
      let dynamicSymbols = SyntheticELF.symbols([
        (dynamicOffsets["swift_retain"] ?? 0, UInt8(STB_GLOBAL << 4) | UInt8(STT_FUNC), 0, 0)
      ])
      let dynsym = elf.add(
        .init(name: ".dynsym", type: SHT_DYNSYM, bytes: dynamicSymbols, link: dynstr, entrySize: 24))
      var relocations = Bytes()
      var relocation = Elf64_Rela()
      relocation.r_offset = 0x40_4018
      relocation.r_info = (1 << 32) | UInt64(R_X86_64_JUMP_SLOT)
      relocations.raw(relocation)
      relocation.r_offset = 0x40_4020
      relocation.r_info = (1 << 32) | UInt64(R_X86_64_RELATIVE)  // not an import
      relocations.raw(relocation)
      elf.add(.init(name: ".rela.plt", type: SHT_RELA, bytes: relocations.data, link: dynsym, entrySize: 24))
      elf.add(.init(name: ".bss", type: SHT_NOBITS, bytes: []))
      return elf
    }

    @Test func headersAndSectionNamesAreRead() throws {
      let owned = OwnedBytes(Self.image().bytes)
      let file = try ELFFile(bytes: owned.bytes)
      #expect(file.loadBase == 0x40_1000)
      #expect(
        file.sections.map(\.name) == [
          "", ".strtab", ".symtab", ".dynstr", ".dynsym", ".rela.plt", ".bss", ".shstrtab",
        ])
      #expect(file.section(named: ".symtab")?.type == UInt32(SHT_SYMTAB))
      #expect(file.section(named: ".bss").map { file.bytes(of: $0) == nil } == true)
      #expect(file.section(named: ".debug_info") == nil)
      #expect(file.dwarfSection(named: ".strtab")?.count == file.section(named: ".strtab")?.range?.count)
    }

    @Test func symbolsAreSortedIntoFunctionsAndData() throws {
      let owned = OwnedBytes(Self.image().bytes)
      let symbols = ImageSymbols(try ELFFile(bytes: owned.bytes))
      #expect(symbols.loadBase == 0x40_1000)
      // Offsets from the load base.
      #expect(symbols.functions.name(at: 0x100) == "main")
      #expect(symbols.functions.name(at: 0x13F) == "main")
      #expect(symbols.functions.extent(at: 0x120).map { [$0.start, $0.size] } == [0x100, 0x40])
      #expect(symbols.functions.name(at: 0x140) == nil)
      #expect(symbols.functions.name(at: 0x200) == nil)  // the symbol without a size
      #expect(symbols.functions.name(at: 0x300) == nil)  // the one whose name lies outside the strings
      #expect(symbols.functions.name(at: 0x190) == "$s4main3FooCMa")
      // A noncopyable field type's name is an object kept with the functions too.
      #expect(symbols.functions.name(at: 0x1100)?.hasPrefix(ImageSymbols.hiddenTypePrefix) == true)
      #expect(symbols.data.name(at: 0x1100)?.hasPrefix(ImageSymbols.hiddenTypePrefix) == true)
      #expect(symbols.data.name(at: 0x2004) == "counter")
      #expect(symbols.data.name(at: 0x100) == nil)
      #expect(
        symbols.data.entries { String(cString: $0).hasPrefix("$s") }.map(\.name) == ["$s4main5ValueVMn"])
      #expect(symbols.functions.starts(ofSymbolsUpTo: 0x20) == [0x180, 0x1100])
      // The Swift runtime's local symbols by name, whatever their type.
      #expect(symbols.localSymbols == ["$s4main5ValueVMn": 0x1000, "$s4main3FooCMa": 0x180])
      #expect(
        symbols.localSymbol(readablyNamed: "main.Value descriptor", suffix: "Mn") {
          $0 == "$s4main5ValueVMn" ? "main.Value descriptor" : nil
        } == 0x1000)
      #expect(symbols.localSymbol(readablyNamed: "main.Foo", suffix: "MD") { _ in "main.Foo" } == nil)
    }

    #if arch(x86_64)
      @Test func importsAreReadFromTheDynamicRelocations() throws {
        let owned = OwnedBytes(Self.image().bytes)
        let symbols = ImageSymbols(try ELFFile(bytes: owned.bytes))
        #expect(symbols.importedFunction(atSlot: 0x3018) == "swift_retain")
        #expect(symbols.importedFunction(atSlot: 0x3020) == nil)
      }
    #endif

    @Test func whatIsNotAnELF64ImageIsRefused() {
      let image = Self.image().bytes
      func read(_ bytes: [UInt8]) -> Result<ELFFile, ELFError> {
        let owned = OwnedBytes(bytes)
        return Result { () throws(ELFError) in try ELFFile(bytes: owned.bytes) }
      }
      #expect(throws: ELFError.notELF64) { try read([]).get() }
      #expect(throws: ELFError.notELF64) { try read(Array(image.prefix(63))).get() }
      var notELF = image
      notELF[1] = UInt8(ascii: "X")
      #expect(throws: ELFError.notELF64) { try read(notELF).get() }
      var elf32 = image
      elf32[Int(EI_CLASS)] = UInt8(ELFCLASS32)
      #expect(throws: ELFError.notELF64) { try read(elf32).get() }
      var bigEndian = image
      bigEndian[Int(EI_DATA)] = UInt8(ELFDATA2MSB)
      #expect(throws: ELFError.notELF64) { try read(bigEndian).get() }
      // The section headers come last: any cut into them is refused.
      #expect(throws: ELFError.truncated("section headers")) { try read(Array(image.dropLast())).get() }
      // Section headers said to be smaller than an Elf64_Shdr.
      var small = image
      small[58] = 32  // e_shentsize
      #expect(throws: ELFError.truncated("section headers")) { try read(small).get() }
      // A program header table far outside the file.
      var farAway = image
      farAway.replaceSubrange(32..<40, with: [0, 0, 0, 0, 0, 0, 0, 0x7F])  // e_phoff
      #expect(throws: ELFError.truncated("program headers")) { try read(farAway).get() }
    }

    /// Every prefix of an image, and the image with any one byte of its headers replaced, is read
    /// without a crash: a refusal, or sections and symbols that lie inside the bytes.
    @Test func cutOrCorruptedImagesNeverCrash() {
      let image = Self.image().bytes
      var read = 0
      func probe(_ bytes: [UInt8]) {
        let owned = OwnedBytes(bytes)
        guard let file = try? ELFFile(bytes: owned.bytes) else { return }
        read += 1
        for section in file.sections {
          if let range = section.range { #expect(range.upperBound <= bytes.count) }
        }
        let symbols = ImageSymbols(file)
        _ = symbols.functions.name(at: 0x100)
        _ = symbols.importedFunction(atSlot: 0x3018)
        _ = ImageDebugInfo(file).functionsWithInlinedCode
      }
      for length in 0..<image.count { probe(Array(image.prefix(length))) }
      let sectionHeaders = image.count - 8 * MemoryLayout<Elf64_Shdr>.size
      for position in Array(0..<MemoryLayout<Elf64_Ehdr>.size) + Array(sectionHeaders..<image.count) {
        for value: UInt8 in [0x00, 0x7F, 0xFF] {
          var corrupted = image
          corrupted[position] = value
          probe(corrupted)
        }
      }
      #expect(read > 0)
    }

    /// A string table whose last string has no terminating NUL gives no name for it.
    @Test func unterminatedNamesAreNotRead() throws {
      var elf = SyntheticELF()
      let strtab = elf.add(.init(name: ".strtab", type: SHT_STRTAB, bytes: [0] + Array("open".utf8)))
      let function = UInt8(STB_GLOBAL << 4) | UInt8(STT_FUNC)
      elf.add(
        .init(
          name: ".symtab", type: SHT_SYMTAB, bytes: SyntheticELF.symbols([(1, function, 0x40_1100, 0x10)]),
          link: strtab, entrySize: 24))
      let owned = OwnedBytes(elf.bytes)
      let symbols = ImageSymbols(try ELFFile(bytes: owned.bytes))
      #expect(symbols.functions.name(at: 0x100) == nil)
    }
  }
#endif
