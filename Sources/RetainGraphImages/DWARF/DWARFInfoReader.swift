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

  /// One unit of `.debug_info` read (DWARF 2 to 5, 32-bit format, compile and partial units, 8-byte
  /// addresses): the facts ``ImageDebugInfo`` keeps (inlined functions, linkage names, async frame
  /// slots, declarations). DIE offsets count from the start of `.debug_info`. Anything not
  /// understood (an unknown form, bytes that end too soon) ends the unit's reading with what was
  /// read before it, and is returned as the error.
  struct DWARFInfoReader {
    let sections: DWARFSections

    var inlined: [UInt: [Int]] = [:]
    var names: [Int: UnsafePointer<CChar>] = [:]
    var origins: [Int: Int] = [:]
    /// Per async partial function start: the context offsets of its variables (nil: one not read).
    var frameSlots: [UInt: [Int]?] = [:]
    var partialFunctionNames: [UInt: UnsafePointer<CChar>] = [:]
    /// Per DIE offset of a function with a declaration line: where it is declared.
    var declarations: [Int: DWARFDeclaration] = [:]
    /// Per DIE offset of a named type: its linkage name, and the files its functions are declared in.
    var types: [Int: (name: UnsafePointer<CChar>, files: DWARFFileSet)] = [:]
    /// The unit's line program and compile directory (from its compile unit entry).
    var unitFiles: DWARFUnitFiles?
    /// Per function start (`DW_AT_low_pc` of a `DW_TAG_subprogram`): its DIE offset.
    var functionStarts: [UInt: Int] = [:]
    /// The compile unit entry's address ranges: `DW_AT_low_pc` with `DW_AT_high_pc`, or the
    /// offset of its `DW_AT_ranges` list.
    var unitLowPC: UInt?
    var unitHighPC: (value: UInt, isOffset: Bool)?
    var unitRanges: Int?

    init(sections: DWARFSections) {
      self.sections = sections
    }

    /// An abbreviation: the DIE's tag, whether it has children, and its attributes' (name, form).
    struct Abbreviation {
      var tag: UInt64
      var hasChildren: Bool
      /// Each attribute's name and form, and the value of a `DW_FORM_implicit_const` (0 otherwise).
      var attributes: [(name: UInt64, form: UInt64, value: Int64)]
    }

    /// What a DIE says that matters here.
    struct Entry {
      var lowPC: UInt?
      /// `DW_AT_high_pc`: an address, or (a constant form) the size from `DW_AT_low_pc`.
      var highPC: (value: UInt, isOffset: Bool)?
      /// `DW_AT_ranges`: a range list's offset (`DW_FORM_sec_offset`).
      var ranges: Int?
      var linkageName: UnsafePointer<CChar>?
      var reference: Int?
      /// `DW_AT_location`: an expression's range in `.debug_info`, or a form other than an expression.
      var location: Range<Int>?
      var hasOtherLocation = false
      /// `DW_AT_APPLE_optimized` (a compile unit of optimised code).
      var isOptimized = false
      /// `DW_AT_decl_file` (-1: none; DWARF 5 counts files from 0) and `DW_AT_decl_line` (0: none).
      var declarationFile: Int64 = -1
      var declarationLine: Int64 = 0
      /// A compile unit's `DW_AT_stmt_list` and `DW_AT_comp_dir`.
      var lineProgram: Int?
      var compileDirectory: UnsafePointer<CChar>?

      /// Keeps a string attribute the reader uses.
      mutating func keep(_ string: UnsafePointer<CChar>, as name: UInt64) {
        if name == DW_AT_comp_dir { compileDirectory = string } else { linkageName = string }
      }

      /// Keeps a constant attribute the reader uses.
      mutating func keep(_ value: Int64, as name: UInt64) {
        switch name {
        case DW_AT_decl_file: declarationFile = value
        case DW_AT_decl_line: declarationLine = value
        case DW_AT_stmt_list: lineProgram = Int(truncatingIfNeeded: value)
        case DW_AT_high_pc: highPC = (UInt(truncatingIfNeeded: value), isOffset: true)
        case DW_AT_ranges: ranges = Int(truncatingIfNeeded: value)
        default: break
        }
      }
    }

    typealias Unit = DWARFUnitHeader

    /// Reads the unit `unit` (index `index` of the image's unit table); what was read before
    /// anything not understood is kept.
    /// - Returns: what ended the reading early, nil when the whole unit was read.
    mutating func read(_ unit: Unit, index: Int) -> DWARFError? {
      var unused: [Int: Abbreviation] = [:]
      return read(unit, index: index, rootOnly: false, abbreviations: &unused)
    }

    /// ``read(_:index:)``, or with `rootOnly` the compile unit entry alone (its address ranges),
    /// its abbreviation looked up in `abbreviations` (by table offset and code) and kept there.
    /// - Returns: what ended the reading early, nil when what was asked for was read.
    mutating func read(
      _ unit: Unit, index: Int, rootOnly: Bool, abbreviations: inout [Int: Abbreviation]
    ) -> DWARFError? {
      guard unit.isCompileUnit, unit.addressSize == 8 else { return nil }
      if rootOnly {
        // The first entry's abbreviation alone: thousands of units each have a table of their own.
        var cursor = DWARFCursor(sections.info, at: unit.entriesStart)
        let code = cursor.uleb()
        let key = unit.abbreviationOffset << 20 | Int(truncatingIfNeeded: code & 0xF_FFFF)
        guard !cursor.overran,
          let abbreviation = abbreviations[key] ?? abbreviation(code, inTableAt: unit.abbreviationOffset)
        else {
          return .unknownAbbreviation(code: code, offset: unit.entriesStart)
        }
        abbreviations[key] = abbreviation
        return readEntries(of: unit, index: index, table: [code: abbreviation], rootOnly: true)
      }
      guard let table = abbreviationTable(at: unit.abbreviationOffset) else {
        return .truncated(section: ".debug_abbrev", offset: unit.abbreviationOffset)
      }
      return readEntries(of: unit, index: index, table: table, rootOnly: rootOnly)
    }

    /// Reads one unit's DIEs; the error when a form is not understood or the bytes end too soon (the
    /// rest cannot be parsed).
    private mutating func readEntries(
      of unit: Unit, index: Int, table: [UInt64: Abbreviation], rootOnly: Bool
    ) -> DWARFError? {
      // The unit's own bytes only: an entry cut at the unit's end is an error, not the next unit.
      let unitBytes = UnsafeRawBufferPointer(rebasing: sections.info[0..<unit.end])
      var cursor = DWARFCursor(unitBytes, at: unit.entriesStart)
      // The functions being read, innermost last: (depth, start address, an async partial
      // function's), and the current depth.
      var owners: [(depth: Int, start: UInt, isPartial: Bool)] = []
      // The named types being read, innermost last: (depth of the type's DIE, its offset).
      var typeOwners: [(depth: Int, offset: Int)] = []
      var depth = 0
      // Frame slots are read only from unoptimised code: an optimised coroutine frame may give one
      // slot to values whose lifetimes do not overlap, so a dead variable's slot may hold a live one.
      var isOptimized = true
      while cursor.offset < unit.end {
        let offset = cursor.offset
        let code = cursor.uleb()
        guard !cursor.overran else { return .truncated(section: ".debug_info", offset: offset) }
        if code == 0 {
          depth -= 1
          while let last = owners.last, last.depth > depth { owners.removeLast() }
          while let last = typeOwners.last, last.depth >= depth { typeOwners.removeLast() }
          if depth < 0 { return nil }
          continue
        }
        guard let abbreviation = table[code] else { return .unknownAbbreviation(code: code, offset: offset) }
        var entry = Entry()
        for attribute in abbreviation.attributes {
          guard
            read(
              attribute.form, name: attribute.name, implicitValue: attribute.value, at: &cursor, unit: unit,
              into: &entry)
          else {
            return .unreadableAttribute(form: attribute.form, offset: offset)
          }
        }
        switch abbreviation.tag {
        case DW_TAG_compile_unit:
          isOptimized = entry.isOptimized
          unitFiles = DWARFUnitFiles(lineProgram: entry.lineProgram, directory: entry.compileDirectory)
          unitLowPC = entry.lowPC
          unitHighPC = entry.highPC
          unitRanges = entry.ranges
          if rootOnly { return nil }
        case DW_TAG_structure_type, DW_TAG_class_type, DW_TAG_union_type, DW_TAG_enumeration_type:
          if abbreviation.hasChildren, let name = entry.linkageName, unitFiles != nil {
            types[offset] = (name, DWARFFileSet(unit: index))
            typeOwners.append((depth, offset))
          }
        case DW_TAG_subprogram:  // named, or referring to its declaration or abstract origin
          if let name = entry.linkageName {
            names[offset] = name
          } else if let reference = entry.reference {
            origins[offset] = reference
          }
          if entry.declarationLine > 0, entry.declarationFile >= 0, unitFiles != nil,
            entry.declarationLine <= UInt32.max, entry.declarationFile <= UInt32.max
          {
            let file = UInt32(entry.declarationFile)
            declarations[offset] = DWARFDeclaration(
              unit: UInt32(index), file: file, line: UInt32(entry.declarationLine))
            if let owner = typeOwners.last, owner.depth == depth - 1 {
              types[owner.offset]?.files.insert(file)
            }
          }
          if let lowPC = entry.lowPC, lowPC != 0 {
            if functionStarts[lowPC] == nil { functionStarts[lowPC] = offset }
            // A method's partial function names itself through its declaration.
            let name = entry.linkageName ?? entry.reference.flatMap { names[$0] }
            let isPartial = !isOptimized && (name.map(AsyncFunctionNames.isPartialFunction) ?? false)
            owners.append((depth, lowPC, isPartial))
            if isPartial, let name, frameSlots[lowPC] == nil {
              partialFunctionNames[lowPC] = name
              frameSlots[lowPC] = .some([])
            }
          }
        case DW_TAG_variable, DW_TAG_formal_parameter:
          if let owner = owners.last, owner.isPartial, let known = frameSlots[owner.start], var slots = known
          {
            if let location = entry.location, let slot = contextSlot(location) {
              slots.append(slot)
              frameSlots[owner.start] = .some(slots)
            } else if entry.location != nil || entry.hasOtherLocation {
              frameSlots[owner.start] = .some(nil)
            }
          }
        case DW_TAG_inlined_subroutine:
          if let owner = owners.last, let reference = entry.reference {
            inlined[owner.start, default: []].append(reference)
          }
        default:
          break
        }
        if abbreviation.hasChildren { depth += 1 }
      }
      return cursor.offset == unit.end ? nil : .truncated(section: ".debug_info", offset: cursor.offset)
    }

    /// The abbreviation `code` of the table at `start` in `.debug_abbrev`, read up to it; nil when
    /// the table does not have it.
    private func abbreviation(_ wanted: UInt64, inTableAt start: Int) -> Abbreviation? {
      var cursor = DWARFCursor(sections.abbreviations, at: start)
      while !cursor.isAtEnd, !cursor.overran {
        guard let (code, abbreviation) = Self.nextAbbreviation(&cursor, keepingAttributes: { $0 == wanted })
        else { return nil }
        if code == wanted, !cursor.overran { return abbreviation }
      }
      return nil
    }

    /// The abbreviation table at `start` in `.debug_abbrev`; nil when it does not end there.
    private func abbreviationTable(at start: Int) -> [UInt64: Abbreviation]? {
      var table: [UInt64: Abbreviation] = [:]
      var cursor = DWARFCursor(sections.abbreviations, at: start)
      while !cursor.isAtEnd, !cursor.overran {
        guard let (code, abbreviation) = Self.nextAbbreviation(&cursor, keepingAttributes: { _ in true })
        else { return cursor.overran ? nil : table }
        table[code] = abbreviation
      }
      return nil
    }

    /// The abbreviation at `cursor` and its code, the cursor moved past it; nil at the table's end
    /// (code 0). Its attributes are kept only when `keepingAttributes` says so for its code (a
    /// search skips the others without making their lists).
    private static func nextAbbreviation(
      _ cursor: inout DWARFCursor, keepingAttributes: (UInt64) -> Bool
    ) -> (code: UInt64, abbreviation: Abbreviation)? {
      let code = cursor.uleb()
      if code == 0 { return nil }
      let tag = cursor.uleb()
      let hasChildren = cursor.byte() != 0
      let keeps = keepingAttributes(code)
      var attributes: [(UInt64, UInt64, Int64)] = []
      while !cursor.isAtEnd, !cursor.overran {
        let name = cursor.uleb()
        let form = cursor.uleb()
        if name == 0, form == 0 { break }
        let value = form == DW_FORM_implicit_const ? cursor.sleb() : 0  // its value lives here
        if keeps { attributes.append((name, form, value)) }
      }
      return (code, Abbreviation(tag: tag, hasChildren: hasChildren, attributes: attributes))
    }
  }
#endif
