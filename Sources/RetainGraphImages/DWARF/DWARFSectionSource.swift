// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  /// Where the DWARF reader finds its sections: an ELF image (``ELFFile``), or bytes a test made.
  package protocol DWARFSectionSource {
    /// The bytes of the section named `name` (`.debug_info`, `.debug_abbrev`, `.debug_str`,
    /// `.debug_line_str`, `.debug_line`, `.debug_aranges`, `.debug_ranges`, `.debug_rnglists`), nil
    /// when there is none. They stay valid while the source lives.
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
    /// `.debug_aranges`: which unit holds which addresses, where the producer wrote it.
    var addressRanges: UnsafeRawBufferPointer?
    /// `.debug_ranges` (DWARF 2 to 4) and `.debug_rnglists` (DWARF 5): the units' `DW_AT_ranges`.
    var ranges: UnsafeRawBufferPointer?
    var rangeLists: UnsafeRawBufferPointer?

    /// No sections (for a reader that is never asked to read).
    static var empty: DWARFSections { DWARFSections() }

    private init() {
      info = UnsafeRawBufferPointer(start: nil, count: 0)
      abbreviations = UnsafeRawBufferPointer(start: nil, count: 0)
    }

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
      addressRanges = source.dwarfSection(named: ".debug_aranges")
      ranges = source.dwarfSection(named: ".debug_ranges")
      rangeLists = source.dwarfSection(named: ".debug_rnglists")
    }
  }
#endif
