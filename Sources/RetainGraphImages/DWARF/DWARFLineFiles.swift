// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  internal import CRetainGraphELF

  /// Where a function is declared: its compile unit (an index of the image's unit table), the
  /// file (an index of that unit's line program's file table) and the line (from 1).
  struct DWARFDeclaration {
    var unit: UInt32
    var file: UInt32
    var line: UInt32
  }

  /// The files (indices of one unit's file table) that a type's functions are declared in.
  struct DWARFFileSet {
    var unit: Int
    private(set) var files: [UInt32] = []

    init(unit: Int) { self.unit = unit }

    mutating func insert(_ file: UInt32) {
      if !files.contains(file) { files.append(file) }
    }
  }

  /// A compile unit's `DW_AT_stmt_list` (its line program's offset in `.debug_line`) and
  /// `DW_AT_comp_dir`.
  struct DWARFUnitFiles {
    var lineProgram: Int?
    var directory: UnsafePointer<CChar>?
  }

  /// The file table of one line program's header (DWARF 2 to 5, 32-bit format): each file's path,
  /// made absolute with its directory and the unit's compile directory.
  enum DWARFLineFiles {
    /// The paths of the file table of the line program at `offset` of `.debug_line`, by their index
    /// (DWARF 2 to 4 count from 1, index 0 is then empty; DWARF 5 counts from 0). Empty when the
    /// header is not one this reader understands.
    static func paths(
      at offset: Int, in sections: DWARFSections, compileDirectory: String?
    ) -> [String] {
      guard let lines = sections.lines else { return [] }
      var cursor = DWARFCursor(lines, at: offset)
      let length = Int(cursor.u32())
      guard length < 0xFFFF_FFF0, !cursor.overran else { return [] }
      let version = Int(cursor.u16())
      guard (2...5).contains(version) else { return [] }
      if version >= 5 { cursor.skip(2) }  // address_size, segment_selector_size
      _ = cursor.u32()  // header_length
      cursor.skip(version >= 4 ? 5 : 4)  // instruction lengths, default_is_stmt, line_base, line_range
      let opcodeBase = Int(cursor.byte())
      cursor.skip(max(opcodeBase - 1, 0))  // standard_opcode_lengths
      guard !cursor.overran else { return [] }
      let base = compileDirectory ?? ""
      if version >= 5 {
        let directories = entries(at: &cursor, sections: sections).map { $0.path ?? "" }
        return entries(at: &cursor, sections: sections).map { entry in
          let directory = directories.indices.contains(entry.directory) ? directories[entry.directory] : ""
          return joined(base, directory, entry.path ?? "")
        }
      }
      var directories = [base]
      while let directory = cursor.cString(), directory.pointee != 0 {
        directories.append(String(cString: directory))
      }
      var files = [""]
      while let name = cursor.cString(), name.pointee != 0 {
        let directory = Int(truncatingIfNeeded: cursor.uleb())
        _ = cursor.uleb()  // modification time
        _ = cursor.uleb()  // length
        guard !cursor.overran else { return [] }
        let folder = directories.indices.contains(directory) ? directories[directory] : ""
        files.append(joined(base, folder, String(cString: name)))
      }
      return cursor.overran ? [] : files
    }

    /// `name` in `directory`, in `base` when the directory is relative.
    private static func joined(_ base: String, _ directory: String, _ name: String) -> String {
      if name.hasPrefix("/") { return name }
      let folder = directory.hasPrefix("/") || base.isEmpty ? directory : "\(base)/\(directory)"
      return folder.isEmpty ? name : "\(folder)/\(name)"
    }

    /// One DWARF 5 directory or file table: its entry format, count and entries (their path and
    /// directory index; nil path for a form not read here).
    private static func entries(
      at cursor: inout DWARFCursor, sections: DWARFSections
    ) -> [(path: String?, directory: Int)] {
      let formatCount = Int(cursor.byte())
      var format: [(type: UInt64, form: UInt64)] = []
      for _ in 0..<formatCount { format.append((cursor.uleb(), cursor.uleb())) }
      let count = Int(truncatingIfNeeded: cursor.uleb())
      guard !cursor.overran, count < 1 << 20 else { return [] }
      var found: [(path: String?, directory: Int)] = []
      for _ in 0..<count {
        var entry: (path: String?, directory: Int) = (nil, 0)
        for (type, form) in format {
          guard let value = value(form, at: &cursor, sections: sections) else { return [] }
          switch (type, value) {
          case (DW_LNCT_path, .string(let path)): entry.path = path
          case (DW_LNCT_directory_index, .number(let index)): entry.directory = index
          default: break
          }
        }
        found.append(entry)
      }
      return cursor.overran ? [] : found
    }

    private enum Value {
      case string(String)
      case number(Int)
      case other
    }

    /// One attribute of a DWARF 5 entry; nil for a form the header cannot hold.
    private static func value(_ form: UInt64, at cursor: inout DWARFCursor, sections: DWARFSections) -> Value?
    {
      switch form {
      case DW_FORM_string: return cursor.cString().map { .string(String(cString: $0)) }
      case DW_FORM_line_strp, DW_FORM_strp:
        let offset = Int(cursor.u32())
        guard let section = form == DW_FORM_strp ? sections.strings : sections.lineStrings,
          let string = DWARFCursor.cString(in: section, at: offset)
        else { return .other }
        return .string(String(cString: string))
      case DW_FORM_udata: return .number(Int(truncatingIfNeeded: cursor.uleb()))
      case DW_FORM_data1: return .number(Int(cursor.byte()))
      case DW_FORM_data2: return .number(Int(cursor.u16()))
      case DW_FORM_data4: return .number(Int(cursor.u32()))
      case DW_FORM_data8: return .number(Int(truncatingIfNeeded: cursor.u64()))
      case DW_FORM_data16:
        cursor.skip(16)
        return .other
      case DW_FORM_block:
        cursor.skip(Int(truncatingIfNeeded: cursor.uleb()))
        return .other
      default: return nil
      }
    }
  }
#endif
