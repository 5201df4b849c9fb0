// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  /// DWARF that a lookup by address could not read: each case names the section and the offset in
  /// it. A whole-image question (every unit) skips what it cannot read instead.
  package enum DWARFError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A unit header, an address range table or a range list ends past its section, or its length
    /// is not one this reader reads (64-bit DWARF, a reserved value).
    case truncated(section: String, offset: Int)
    /// An entry's abbreviation code is not in its unit's table.
    case unknownAbbreviation(code: UInt64, offset: Int)
    /// An attribute's form is not one this reader understands, or its bytes end past the unit.
    case unreadableAttribute(form: UInt64, offset: Int)

    package var description: String {
      switch self {
      case .truncated(let section, let offset):
        "the DWARF section \(section) ends or is malformed at offset \(offset)"
      case .unknownAbbreviation(let code, let offset):
        "the DWARF entry at offset \(offset) of .debug_info has the unknown abbreviation code \(code)"
      case .unreadableAttribute(let form, let offset):
        "the DWARF entry at offset \(offset) of .debug_info has an attribute of form \(form) that cannot be read"
      }
    }
  }
#endif
