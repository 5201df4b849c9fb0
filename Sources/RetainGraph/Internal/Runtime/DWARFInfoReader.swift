#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// One pass over `.debug_info` (DWARF 2 to 5, 32-bit format, compile and partial units): the facts
/// `ImageDebugInfo` keeps (inlined functions, linkage names, async frame slots), read from an image
/// mapped into memory.
struct DWARFInfoReader {
  let file: UnsafeRawPointer
  let info: Range<Int>
  let abbreviations: Range<Int>
  let strings: Range<Int>?
  let lineStrings: Range<Int>?

  var inlined: [UInt: [Int]] = [:]
  var names: [Int: UnsafePointer<CChar>] = [:]
  var origins: [Int: Int] = [:]
  /// Per async partial function start: the context offsets of its variables (nil: one not read).
  var frameSlots: [UInt: [Int]?] = [:]
  var partialFunctionNames: [UInt: UnsafePointer<CChar>] = [:]

  init(
    file: UnsafeRawPointer, info: Range<Int>, abbreviations: Range<Int>, strings: Range<Int>?,
    lineStrings: Range<Int>?
  ) {
    self.file = file
    self.info = info
    self.abbreviations = abbreviations
    self.strings = strings
    self.lineStrings = lineStrings
  }

  /// An abbreviation: the DIE's tag, whether it has children, and its attributes' (name, form,
  /// implicit constant).
  struct Abbreviation {
    var tag: UInt64
    var hasChildren: Bool
    var attributes: [(name: UInt64, form: UInt64)]
  }

  /// What a DIE says that matters here.
  struct Entry {
    var lowPC: UInt?
    var linkageName: UnsafePointer<CChar>?
    var reference: Int?
    /// `DW_AT_location`: an expression's file range, or a form other than an expression.
    var location: Range<Int>?
    var hasOtherLocation = false
    /// `DW_AT_APPLE_optimized` (a compile unit of optimised code).
    var isOptimized = false
  }

  mutating func read() {
    var tables: [Int: [UInt64: Abbreviation]] = [:]
    var unit = info.lowerBound
    while unit + 11 <= info.upperBound {
      let unitLength = Int(file.loadUnaligned(fromByteOffset: unit, as: UInt32.self))
      // 0xFFFFFFFF announces the 64-bit format, not read here; 0xFFFFFFF0… are reserved.
      guard unitLength < 0xFFFF_FFF0, unit + 4 + unitLength <= info.upperBound else { return }
      let end = unit + 4 + unitLength
      defer { unit = end }
      let version = Int(file.loadUnaligned(fromByteOffset: unit + 4, as: UInt16.self))
      var cursor = unit + 6
      let abbreviationOffset: Int
      let addressSize: Int
      switch version {
      case 2...4:
        abbreviationOffset = Int(file.loadUnaligned(fromByteOffset: cursor, as: UInt32.self))
        addressSize = Int(file.load(fromByteOffset: cursor + 4, as: UInt8.self))
        cursor += 5
      case 5:
        let unitType = file.load(fromByteOffset: cursor, as: UInt8.self)
        // Compile (1) and partial (3) units only: type and skeleton units name no inlined code.
        guard unitType == 1 || unitType == 3 else { continue }
        addressSize = Int(file.load(fromByteOffset: cursor + 1, as: UInt8.self))
        abbreviationOffset = Int(file.loadUnaligned(fromByteOffset: cursor + 2, as: UInt32.self))
        cursor += 6
      default:
        continue
      }
      let table: [UInt64: Abbreviation]
      if let known = tables[abbreviationOffset] {
        table = known
      } else {
        guard let made = abbreviationTable(at: abbreviations.lowerBound + abbreviationOffset) else {
          continue
        }
        tables[abbreviationOffset] = made
        table = made
      }
      guard addressSize == 8 else { continue }
      guard readEntries(from: cursor, to: end, unit: unit, version: version, table: table) else { return }
    }
  }

  /// Reads one unit's DIEs; false when a form is not understood (the rest cannot be parsed).
  private mutating func readEntries(
    from start: Int, to end: Int, unit: Int, version: Int, table: [UInt64: Abbreviation]
  ) -> Bool {
    var cursor = start
    // The functions being read, innermost last: (depth, start address, an async partial
    // function's), and the current depth.
    var owners: [(depth: Int, start: UInt, isPartial: Bool)] = []
    var depth = 0
    // Frame slots are read only from unoptimised code: an optimised coroutine frame may give one
    // slot to values whose lifetimes do not overlap, so a dead variable's slot may hold a live one.
    var isOptimized = true
    while cursor < end {
      let offset = cursor
      let code = uleb(&cursor)
      if code == 0 {
        depth -= 1
        while let last = owners.last, last.depth > depth { owners.removeLast() }
        if depth < 0 { return true }
        continue
      }
      guard let abbreviation = table[code] else { return false }
      var entry = Entry()
      for attribute in abbreviation.attributes {
        guard
          read(
            attribute.form, name: attribute.name, at: &cursor, unit: unit, version: version, into: &entry)
        else { return false }
      }
      switch abbreviation.tag {
      case 0x11:  // DW_TAG_compile_unit
        isOptimized = entry.isOptimized
      case 0x2E:  // DW_TAG_subprogram: named, or referring to its declaration or abstract origin
        if let name = entry.linkageName {
          names[offset] = name
        } else if let reference = entry.reference {
          origins[offset] = reference
        }
        if let lowPC = entry.lowPC, lowPC != 0 {
          // A method's partial function names itself through its declaration.
          let name = entry.linkageName ?? entry.reference.flatMap { names[$0] }
          let isPartial = !isOptimized && (name.map(Self.isPartialFunction) ?? false)
          owners.append((depth, lowPC, isPartial))
          if isPartial, let name, frameSlots[lowPC] == nil {
            partialFunctionNames[lowPC] = name
            frameSlots[lowPC] = .some([])
          }
        }
      case 0x34, 0x05:  // DW_TAG_variable, DW_TAG_formal_parameter
        if let owner = owners.last, owner.isPartial, let known = frameSlots[owner.start], var slots = known {
          if let location = entry.location, let slot = contextSlot(location) {
            slots.append(slot)
            frameSlots[owner.start] = .some(slots)
          } else if entry.location != nil || entry.hasOtherLocation {
            frameSlots[owner.start] = .some(nil)
          }
        }
      case 0x1D:  // DW_TAG_inlined_subroutine
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

  /// Reads one attribute value of `form`, keeping what `name` says about the entry.
  private func read(
    _ form: UInt64, name: UInt64, at cursor: inout Int, unit: Int, version: Int, into entry: inout Entry
  ) -> Bool {
    func load<T: FixedWidthInteger>(_: T.Type) -> T {
      defer { cursor += MemoryLayout<T>.size }
      return file.loadUnaligned(fromByteOffset: cursor, as: T.self)
    }
    var form = form
    if form == 0x16 { form = uleb(&cursor) }  // DW_FORM_indirect
    switch form {
    case 0x01:  // addr
      let value = UInt(load(UInt64.self))
      if name == 0x11 { entry.lowPC = value }
    case 0x0E, 0x1F:  // strp, line_strp
      let offset = Int(load(UInt32.self))
      if name == 0x6E || name == 0x2007, let section = form == 0x0E ? strings : lineStrings,
        section.lowerBound + offset < section.upperBound
      {
        entry.linkageName = (file + section.lowerBound + offset).assumingMemoryBound(to: CChar.self)
      }
    case 0x08:  // string
      let start = (file + cursor).assumingMemoryBound(to: CChar.self)
      cursor += strlen(start) + 1
      if name == 0x6E || name == 0x2007 { entry.linkageName = start }
    case 0x11, 0x12, 0x13, 0x14, 0x15:  // ref1, ref2, ref4, ref8, ref_udata: from the unit's start
      let value: Int
      switch form {
      case 0x11: value = Int(load(UInt8.self))
      case 0x12: value = Int(load(UInt16.self))
      case 0x13: value = Int(load(UInt32.self))
      case 0x14: value = Int(truncatingIfNeeded: load(UInt64.self))
      default: value = Int(truncatingIfNeeded: uleb(&cursor))
      }
      if name == 0x31 || name == 0x47 { entry.reference = unit + value }
    case 0x10:  // ref_addr: from the section's start
      let value = version == 2 ? Int(truncatingIfNeeded: load(UInt64.self)) : Int(load(UInt32.self))
      if name == 0x31 || name == 0x47 { entry.reference = info.lowerBound + value }
    case 0x0C:  // flag
      if name == 0x3FE1 { entry.isOptimized = file.load(fromByteOffset: cursor, as: UInt8.self) != 0 }
      cursor += 1
    case 0x0B, 0x25, 0x29: cursor += 1  // data1, strx1, addrx1
    case 0x05, 0x26, 0x2A: cursor += 2  // data2, strx2, addrx2
    case 0x27, 0x2B: cursor += 3  // strx3, addrx3
    case 0x06, 0x17, 0x1C, 0x1D, 0x28, 0x2C, 0x1F20, 0x1F21:  // data4, sec_offset, …
      if name == 0x02 { entry.hasOtherLocation = true }  // a location list
      cursor += 4
    case 0x07, 0x20, 0x24: cursor += 8  // data8, ref_sig8, ref_sup8
    case 0x1E: cursor += 16  // data16
    case 0x0D, 0x0F, 0x1A, 0x1B, 0x22, 0x23, 0x1F01, 0x1F02:  // LEB128 values
      if name == 0x02 { entry.hasOtherLocation = true }  // loclistx
      _ = uleb(&cursor)
    case 0x19:  // flag_present
      if name == 0x3FE1 { entry.isOptimized = true }
    case 0x21: break  // implicit_const: no bytes
    case 0x0A, 0x03, 0x04:  // block1, block2, block4: a length, then the bytes
      let length =
        form == 0x0A ? Int(load(UInt8.self)) : form == 0x03 ? Int(load(UInt16.self)) : Int(load(UInt32.self))
      cursor += length
    case 0x09, 0x18:  // block, exprloc
      let length = Int(truncatingIfNeeded: uleb(&cursor))
      if name == 0x02, form == 0x18, length >= 0, cursor + length <= info.upperBound {
        entry.location = cursor..<(cursor + length)
      }
      cursor += length
    default:
      return false
    }
    return cursor <= info.upperBound
  }

  /// Whether a linkage name is an async partial function's (`…TQ0_`, `…TY2_`).
  static func isPartialFunction(_ name: UnsafePointer<CChar>) -> Bool {
    let bytes = UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self)
    let length = strlen(name)
    guard length > 4, bytes[length - 1] == UInt8(ascii: "_") else { return false }
    var index = length - 2
    while index > 1, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
      index -= 1
    }
    return bytes[index - 1] == UInt8(ascii: "T")
      && (bytes[index] == UInt8(ascii: "Q") || bytes[index] == UInt8(ascii: "Y"))
  }

  /// The async-context offset an expression names: `DW_OP_entry_value(DW_OP_regN)` of the async
  /// context register (r14 on x86_64, x22 on arm64), an optional `DW_OP_deref` (an await-resume
  /// partial function gets its callee's context, whose first word is the caller's),
  /// `DW_OP_plus_uconst k`, then anything; nil for any other expression.
  private func contextSlot(_ location: Range<Int>) -> Int? {
    #if arch(x86_64)
      let contextRegister: UInt8 = 0x5E  // DW_OP_reg14
    #else
      let contextRegister: UInt8 = 0x66  // DW_OP_reg22
    #endif
    var cursor = location.lowerBound
    func byte() -> UInt8? {
      guard cursor < location.upperBound else { return nil }
      defer { cursor += 1 }
      return file.load(fromByteOffset: cursor, as: UInt8.self)
    }
    // DW_OP_entry_value (0xA3, or GNU's 0xF3), a one-byte sub-expression: the register.
    guard let entryValue = byte(), entryValue == 0xA3 || entryValue == 0xF3, byte() == 1,
      byte() == contextRegister, var next = byte()
    else { return nil }
    if next == 0x06 {  // DW_OP_deref
      guard let after = byte() else { return nil }
      next = after
    }
    guard next == 0x23 else { return nil }  // DW_OP_plus_uconst
    var offset: UInt64 = 0
    var shift: UInt64 = 0
    while let value = byte() {
      if shift < 64 { offset |= UInt64(value & 0x7F) << shift }
      shift += 7
      if value & 0x80 == 0 { return offset < 1 << 20 ? Int(offset) : nil }
    }
    return nil
  }

  /// The abbreviation table that starts at `start` (a file offset).
  private func abbreviationTable(at start: Int) -> [UInt64: Abbreviation]? {
    var table: [UInt64: Abbreviation] = [:]
    var cursor = start
    while cursor < abbreviations.upperBound {
      let code = uleb(&cursor)
      if code == 0 { return table }
      let tag = uleb(&cursor)
      let hasChildren = file.load(fromByteOffset: cursor, as: UInt8.self) != 0
      cursor += 1
      var attributes: [(UInt64, UInt64)] = []
      while cursor < abbreviations.upperBound {
        let name = uleb(&cursor)
        let form = uleb(&cursor)
        if name == 0, form == 0 { break }
        if form == 0x21 { _ = uleb(&cursor) }  // implicit_const's value lives here
        attributes.append((name, form))
      }
      table[code] = Abbreviation(tag: tag, hasChildren: hasChildren, attributes: attributes)
    }
    return nil
  }

  /// An unsigned (or, skipped, signed) LEB128 at `cursor`, never read past the sections.
  private func uleb(_ cursor: inout Int) -> UInt64 {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while cursor < max(info.upperBound, abbreviations.upperBound) {
      let byte = file.load(fromByteOffset: cursor, as: UInt8.self)
      cursor += 1
      if shift < 64 { result |= UInt64(byte & 0x7F) << shift }
      shift += 7
      if byte & 0x80 == 0 { break }
    }
    return result
  }
}
