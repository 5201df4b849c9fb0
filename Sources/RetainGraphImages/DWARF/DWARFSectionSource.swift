// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  /// Where the DWARF reader finds its sections: an ELF image (``ELFFile``), or bytes a test made.
  package protocol DWARFSectionSource {
    /// The bytes of the section named `name` (`.debug_info`, `.debug_abbrev`, `.debug_str`,
    /// `.debug_line_str`, `.debug_line`), nil when there is none. They stay valid while the source lives.
    func dwarfSection(named name: String) -> UnsafeRawBufferPointer?
  }

  extension ELFFile: DWARFSectionSource {
    package func dwarfSection(named name: String) -> UnsafeRawBufferPointer? {
      section(named: name).flatMap(bytes(of:))
    }
  }

  /// The DWARF sections the reader uses.
  struct DWARFSections {
    /// `.debug_info`: the entries.
    var info: UnsafeRawBufferPointer
    /// `.debug_abbrev`: the abbreviation tables.
    var abbreviations: UnsafeRawBufferPointer
    /// `.debug_str` and `.debug_line_str`: the strings `DW_FORM_strp` and `DW_FORM_line_strp` name.
    var strings: UnsafeRawBufferPointer?
    var lineStrings: UnsafeRawBufferPointer?
    /// `.debug_line`: the line programs, whose headers list the files declarations name.
    var lines: UnsafeRawBufferPointer?

    /// The sections of `source`; nil without `.debug_info` or `.debug_abbrev`.
    init?(_ source: some DWARFSectionSource) {
      guard let info = source.dwarfSection(named: ".debug_info"), info.baseAddress != nil,
        let abbreviations = source.dwarfSection(named: ".debug_abbrev"), abbreviations.baseAddress != nil
      else { return nil }
      self.info = info
      self.abbreviations = abbreviations
      strings = source.dwarfSection(named: ".debug_str")
      lineStrings = source.dwarfSection(named: ".debug_line_str")
      lines = source.dwarfSection(named: ".debug_line")
    }
  }
#endif
