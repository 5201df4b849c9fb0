// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  internal import CRetainGraphELF

  /// Attribute values by form, and the location expressions of async frame slots.
  extension DWARFInfoReader {
    /// Reads one attribute value of `form`, keeping what `name` says about the entry; false when the
    /// form is not understood or its bytes end past the section.
    func read(
      _ form: UInt64, name: UInt64, implicitValue: Int64 = 0, at cursor: inout DWARFCursor, unit: Unit,
      into entry: inout Entry
    ) -> Bool {
      let isLinkageName = name == DW_AT_linkage_name || name == DW_AT_MIPS_linkage_name
      let isString = isLinkageName || name == DW_AT_comp_dir
      let isReference = name == DW_AT_abstract_origin || name == DW_AT_specification
      var form = form
      if form == DW_FORM_indirect { form = cursor.uleb() }
      switch form {
      case DW_FORM_addr:
        let value = UInt(cursor.u64())
        if name == DW_AT_low_pc { entry.lowPC = value }
        if name == DW_AT_high_pc { entry.highPC = (value, isOffset: false) }
      case DW_FORM_strp, DW_FORM_line_strp:
        let offset = Int(cursor.u32())
        if isString, let section = form == DW_FORM_strp ? sections.strings : sections.lineStrings,
          let string = DWARFCursor.cString(in: section, at: offset)
        {
          entry.keep(string, as: name)
        }
      case DW_FORM_string:
        let string = cursor.cString()
        if isString, let string { entry.keep(string, as: name) }
      // From the unit's start.
      case DW_FORM_ref1, DW_FORM_ref2, DW_FORM_ref4, DW_FORM_ref8, DW_FORM_ref_udata:
        let value: Int
        switch form {
        case DW_FORM_ref1: value = Int(cursor.byte())
        case DW_FORM_ref2: value = Int(cursor.u16())
        case DW_FORM_ref4: value = Int(cursor.u32())
        case DW_FORM_ref8: value = Int(truncatingIfNeeded: cursor.u64())
        default: value = Int(truncatingIfNeeded: cursor.uleb())
        }
        if isReference { entry.reference = unit.start &+ value }
      case DW_FORM_ref_addr:  // from the section's start: address-sized in DWARF 2, offset-sized after
        let value =
          unit.version == 2 ? Int(truncatingIfNeeded: cursor.u64()) : Int(cursor.u32())
        if isReference { entry.reference = value }
      case DW_FORM_flag:
        let flag = cursor.byte()
        if name == DW_AT_APPLE_optimized { entry.isOptimized = flag != 0 }
      case DW_FORM_data1: entry.keep(Int64(cursor.byte()), as: name)
      case DW_FORM_data2: entry.keep(Int64(cursor.u16()), as: name)
      case DW_FORM_strx1, DW_FORM_addrx1: cursor.skip(1)
      case DW_FORM_strx2, DW_FORM_addrx2: cursor.skip(2)
      case DW_FORM_strx3, DW_FORM_addrx3: cursor.skip(3)
      case DW_FORM_data4, DW_FORM_sec_offset:
        if name == DW_AT_location { entry.hasOtherLocation = true }  // a location list
        entry.keep(Int64(cursor.u32()), as: name)
      case DW_FORM_ref_sup4, DW_FORM_strp_sup, DW_FORM_strx4, DW_FORM_addrx4, DW_FORM_GNU_ref_alt,
        DW_FORM_GNU_strp_alt:
        cursor.skip(4)
      case DW_FORM_data8: entry.keep(Int64(bitPattern: cursor.u64()), as: name)
      case DW_FORM_ref_sig8, DW_FORM_ref_sup8: cursor.skip(8)
      case DW_FORM_data16: cursor.skip(16)
      case DW_FORM_udata: entry.keep(Int64(truncatingIfNeeded: cursor.uleb()), as: name)
      case DW_FORM_sdata: entry.keep(cursor.sleb(), as: name)
      case DW_FORM_strx, DW_FORM_addrx, DW_FORM_loclistx, DW_FORM_rnglistx,
        DW_FORM_GNU_addr_index, DW_FORM_GNU_str_index:
        if name == DW_AT_location { entry.hasOtherLocation = true }  // loclistx
        _ = cursor.uleb()
      case DW_FORM_flag_present:
        if name == DW_AT_APPLE_optimized { entry.isOptimized = true }
      case DW_FORM_implicit_const: entry.keep(implicitValue, as: name)  // its value is in the abbreviation
      case DW_FORM_block1, DW_FORM_block2, DW_FORM_block4:  // a length, then the bytes
        let length =
          form == DW_FORM_block1
          ? Int(cursor.byte())
          : form == DW_FORM_block2 ? Int(cursor.u16()) : Int(cursor.u32())
        cursor.skip(length)
      case DW_FORM_block, DW_FORM_exprloc:
        let length = Int(truncatingIfNeeded: cursor.uleb())
        let start = cursor.offset
        cursor.skip(length)
        if name == DW_AT_location, form == DW_FORM_exprloc, !cursor.overran {
          entry.location = start..<cursor.offset
        }
      default:
        return false
      }
      return !cursor.overran
    }

    /// The async-context offset an expression names: `DW_OP_entry_value(DW_OP_regN)` of the async
    /// context register (r14 on x86_64, x22 on arm64), an optional `DW_OP_deref` (an await-resume
    /// partial function gets its callee's context, whose first word is the caller's),
    /// `DW_OP_plus_uconst k`, then anything; nil for any other expression.
    func contextSlot(_ location: Range<Int>) -> Int? {
      #if arch(x86_64)
        let contextRegister = DW_OP_reg0 + 14
      #else
        let contextRegister = DW_OP_reg0 + 22
      #endif
      let expression = UnsafeRawBufferPointer(rebasing: sections.info[location])
      var cursor = DWARFCursor(expression, at: 0)
      // DW_OP_entry_value (or GNU's), a one-byte sub-expression: the register.
      let entryValue = cursor.byte()
      guard entryValue == DW_OP_entry_value || entryValue == DW_OP_GNU_entry_value, cursor.byte() == 1,
        cursor.byte() == contextRegister
      else { return nil }
      var next = cursor.byte()
      if next == DW_OP_deref { next = cursor.byte() }
      guard !cursor.overran, next == DW_OP_plus_uconst else { return nil }
      let offset = cursor.uleb()
      return !cursor.overran && offset < 1 << 20 ? Int(offset) : nil
    }
  }
#endif
