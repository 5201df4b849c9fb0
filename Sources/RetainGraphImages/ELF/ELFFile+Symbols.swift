// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  internal import CRetainGraphELF

  /// The symbol tables and dynamic relocations of an ELF image.
  extension ELFFile {
    /// One symbol table entry (`Elf64_Sym`) with a value, a size and a name.
    package struct Symbol {
      /// `st_value`: its virtual address.
      package var value: UInt
      package var size: UInt
      /// `ELF64_ST_TYPE(st_info)`: `STT_FUNC`, `STT_OBJECT`…
      package var type: Int32
      /// Its name, inside the mapped string table.
      package var name: UnsafePointer<CChar>
    }

    /// Calls `body` with each symbol of every section of type `sectionType` (`SHT_SYMTAB` or
    /// `SHT_DYNSYM`) whose value and size are not zero and whose name ends inside its string table,
    /// in the order the tables list them.
    package func forEachSymbol(inSectionsOfType sectionType: Int32, _ body: (Symbol) -> Void) {
      let entrySize = MemoryLayout<Elf64_Sym>.size
      for section in sections where section.type == UInt32(sectionType) {
        guard let table = section.range, let strings = self.section(at: section.link)?.range else { continue }
        let names = ELFStrings(bytes: bytes, range: strings)
        for entry in stride(from: table.lowerBound, through: table.upperBound - entrySize, by: entrySize) {
          let symbol = bytes.loadUnaligned(fromByteOffset: entry, as: Elf64_Sym.self)
          guard symbol.st_value != 0, symbol.st_size > 0, let name = names.cString(at: Int(symbol.st_name))
          else { continue }
          body(
            Symbol(
              value: UInt(symbol.st_value), size: UInt(symbol.st_size),
              type: Int32(rg_elf64_symbol_type(symbol.st_info)), name: name))
        }
      }
    }

    /// Calls `body` with each dynamic relocation of a type in `types` (`R_X86_64_JUMP_SLOT`, a PLT
    /// stub's slot; `R_X86_64_GLOB_DAT`) from the `SHT_RELA` sections linked to the dynamic symbol
    /// table (`SHT_DYNSYM`): the slot it fills (a virtual address) and the name of its symbol.
    package func forEachDynamicRelocation(
      ofTypes types: Set<UInt32>, _ body: (_ slot: UInt, _ name: UnsafePointer<CChar>) -> Void
    ) {
      let entrySize = MemoryLayout<Elf64_Rela>.size
      let symbolSize = MemoryLayout<Elf64_Sym>.size
      for section in sections where section.type == UInt32(SHT_RELA) {
        guard let table = section.range, let symbols = self.section(at: section.link),
          symbols.type == UInt32(SHT_DYNSYM), let symbolRange = symbols.range,
          let strings = self.section(at: symbols.link)?.range
        else { continue }
        let names = ELFStrings(bytes: bytes, range: strings)
        for entry in stride(from: table.lowerBound, through: table.upperBound - entrySize, by: entrySize) {
          let relocation = bytes.loadUnaligned(fromByteOffset: entry, as: Elf64_Rela.self)
          let index = Int(clamping: rg_elf64_relocation_symbol(relocation.r_info))
          guard types.contains(UInt32(truncatingIfNeeded: rg_elf64_relocation_type(relocation.r_info))),
            index > 0, index < symbolRange.count / symbolSize
          else { continue }
          let symbol = bytes.loadUnaligned(
            fromByteOffset: symbolRange.lowerBound + index * symbolSize, as: Elf64_Sym.self)
          guard symbol.st_name > 0, let name = names.cString(at: Int(symbol.st_name)) else { continue }
          body(UInt(relocation.r_offset), name)
        }
      }
    }
  }
#endif
