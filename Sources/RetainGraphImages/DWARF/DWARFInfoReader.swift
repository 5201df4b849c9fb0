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

  /// One pass over `.debug_info` (DWARF 2 to 5, 32-bit format, compile and partial units, 8-byte
  /// addresses): the facts ``ImageDebugInfo`` keeps (inlined functions, linkage names, async frame
  /// slots). DIE offsets count from the start of `.debug_info`. Anything not understood (64-bit
  /// DWARF, an unknown form, bytes that end too soon) ends the reading with what was read before it.
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
    /// The compile units read, in order: where their line programs and compile directories are.
    var units: [DWARFUnitFiles] = []

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
        default: break
        }
      }
    }

    /// A unit's header fields that its entries are read with.
    struct Unit {
      /// The unit's offset in `.debug_info` (unit-relative references count from it).
      var start: Int
      /// The offset just past the unit.
      var end: Int
      var version: Int
    }

    mutating func read() {
      var tables: [Int: [UInt64: Abbreviation]] = [:]
      var unitStart = 0
      let info = sections.info
      while unitStart + 11 <= info.count {
        var cursor = DWARFCursor(info, at: unitStart)
        let unitLength = Int(cursor.u32())
        // 0xFFFFFFFF announces the 64-bit format, not read here; 0xFFFFFFF0… are reserved.
        guard unitLength < 0xFFFF_FFF0, unitLength <= info.count - unitStart - 4 else { return }
        let unit = Unit(start: unitStart, end: unitStart + 4 + unitLength, version: Int(cursor.u16()))
        defer { unitStart = unit.end }
        let abbreviationOffset: Int
        let addressSize: UInt8
        switch unit.version {
        case 2...4:
          abbreviationOffset = Int(cursor.u32())
          addressSize = cursor.byte()
        case 5:
          let unitType = cursor.byte()
          // Compile and partial units only: type and skeleton units name no inlined code.
          guard unitType == DW_UT_compile || unitType == DW_UT_partial else { continue }
          addressSize = cursor.byte()
          abbreviationOffset = Int(cursor.u32())
        default:
          continue
        }
        let table: [UInt64: Abbreviation]
        if let known = tables[abbreviationOffset] {
          table = known
        } else {
          guard let made = abbreviationTable(at: abbreviationOffset) else { continue }
          tables[abbreviationOffset] = made
          table = made
        }
        guard addressSize == 8 else { continue }
        guard readEntries(from: cursor.offset, of: unit, table: table) else { return }
      }
    }

    /// Reads one unit's DIEs; false when a form is not understood or the bytes end too soon (the rest
    /// cannot be parsed).
    private mutating func readEntries(from start: Int, of unit: Unit, table: [UInt64: Abbreviation]) -> Bool {
      var cursor = DWARFCursor(sections.info, at: start)
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
        guard !cursor.overran else { return false }
        if code == 0 {
          depth -= 1
          while let last = owners.last, last.depth > depth { owners.removeLast() }
          while let last = typeOwners.last, last.depth >= depth { typeOwners.removeLast() }
          if depth < 0 { return true }
          continue
        }
        guard let abbreviation = table[code] else { return false }
        var entry = Entry()
        for attribute in abbreviation.attributes {
          guard
            read(
              attribute.form, name: attribute.name, implicitValue: attribute.value, at: &cursor, unit: unit,
              into: &entry)
          else {
            return false
          }
        }
        switch abbreviation.tag {
        case DW_TAG_compile_unit:
          isOptimized = entry.isOptimized
          units.append(DWARFUnitFiles(lineProgram: entry.lineProgram, directory: entry.compileDirectory))
        case DW_TAG_structure_type, DW_TAG_class_type, DW_TAG_union_type, DW_TAG_enumeration_type:
          if abbreviation.hasChildren, let name = entry.linkageName, !units.isEmpty {
            types[offset] = (name, DWARFFileSet(unit: units.count - 1))
            typeOwners.append((depth, offset))
          }
        case DW_TAG_subprogram:  // named, or referring to its declaration or abstract origin
          if let name = entry.linkageName {
            names[offset] = name
          } else if let reference = entry.reference {
            origins[offset] = reference
          }
          if entry.declarationLine > 0, entry.declarationFile >= 0, !units.isEmpty,
            entry.declarationLine <= UInt32.max, entry.declarationFile <= UInt32.max
          {
            let file = UInt32(entry.declarationFile)
            declarations[offset] = DWARFDeclaration(
              unit: UInt32(units.count - 1), file: file, line: UInt32(entry.declarationLine))
            if let owner = typeOwners.last, owner.depth == depth - 1 {
              types[owner.offset]?.files.insert(file)
            }
          }
          if let lowPC = entry.lowPC, lowPC != 0 {
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
      return true
    }

    /// The abbreviation table at `start` in `.debug_abbrev`; nil when it does not end there.
    private func abbreviationTable(at start: Int) -> [UInt64: Abbreviation]? {
      var table: [UInt64: Abbreviation] = [:]
      var cursor = DWARFCursor(sections.abbreviations, at: start)
      while !cursor.isAtEnd, !cursor.overran {
        let code = cursor.uleb()
        if code == 0 { return cursor.overran ? nil : table }
        let tag = cursor.uleb()
        let hasChildren = cursor.byte() != 0
        var attributes: [(UInt64, UInt64, Int64)] = []
        while !cursor.isAtEnd, !cursor.overran {
          let name = cursor.uleb()
          let form = cursor.uleb()
          if name == 0, form == 0 { break }
          let value = form == DW_FORM_implicit_const ? cursor.sleb() : 0  // its value lives here
          attributes.append((name, form, value))
        }
        table[code] = Abbreviation(tag: tag, hasChildren: hasChildren, attributes: attributes)
      }
      return nil
    }
  }
#endif
