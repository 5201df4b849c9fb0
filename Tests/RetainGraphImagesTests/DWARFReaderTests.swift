// The readers are built with the package trait BinaryReaders only (Package.swift).
#if BinaryReaders
  import CRetainGraphELF
  import RetainGraphImages
  import Testing

  /// The DWARF reader on sections made in the test (through the section-source protocol, and inside
  /// an ELF image): inlined functions, linkage names through references, async frame slots, and
  /// sections cut short, corrupted or in forms it does not read (each gives less, never a crash).
  struct DWARFReaderTests {
    static let DW_AT_name: UInt64 = 0x03
    static let DW_AT_producer: UInt64 = 0x25
    static let DW_AT_call_line: UInt64 = 0x59

    /// The abbreviation table: code → (tag, has children, attributes).
    static func abbreviations(optimized: Bool = false, unknownForm: Bool = false) -> [UInt8] {
      var bytes = Bytes()
      func add(_ code: UInt64, _ tag: UInt64, _ children: Bool, _ attributes: [(UInt64, UInt64)]) {
        bytes.uleb(code)
        bytes.uleb(tag)
        bytes.data.append(children ? 1 : 0)
        for (name, form) in attributes {
          bytes.uleb(name)
          bytes.uleb(form)
          if form == DW_FORM_implicit_const { bytes.uleb(7) }
        }
        bytes.data += [0, 0]
      }
      var unit: [(UInt64, UInt64)] = [(DW_AT_producer, DW_FORM_strp), (DW_AT_name, DW_FORM_implicit_const)]
      if optimized { unit.append((DW_AT_APPLE_optimized, DW_FORM_flag_present)) }
      add(1, DW_TAG_compile_unit, true, unit)
      add(2, DW_TAG_subprogram, true, [(DW_AT_low_pc, DW_FORM_addr), (DW_AT_linkage_name, DW_FORM_strp)])
      add(
        3, DW_TAG_inlined_subroutine, false,
        [(DW_AT_abstract_origin, DW_FORM_ref4), (DW_AT_call_line, unknownForm ? 0x7F : DW_FORM_udata)])
      add(4, DW_TAG_subprogram, false, [(DW_AT_linkage_name, DW_FORM_line_strp)])
      add(5, DW_TAG_variable, false, [(DW_AT_name, DW_FORM_string), (DW_AT_location, DW_FORM_exprloc)])
      add(6, DW_TAG_subprogram, true, [(DW_AT_low_pc, DW_FORM_addr), (DW_AT_specification, DW_FORM_ref4)])
      add(7, DW_TAG_formal_parameter, false, [(DW_AT_location, DW_FORM_sec_offset)])
      add(8, DW_TAG_subprogram, false, [(DW_AT_name, DW_FORM_string), (DW_AT_linkage_name, DW_FORM_string)])
      add(9, DW_TAG_inlined_subroutine, false, [(DW_AT_abstract_origin, DW_FORM_ref_addr)])
      bytes.data.append(0)
      return bytes.data
    }

    /// `.debug_str` and `.debug_line_str`, and each string's offset.
    static let strings = SyntheticELF.strings([
      "swiftlang-6.3.1", "$s4main3runyyF", "$s4main4workyyYaFTY0_", "$s4main4workyyYaFTQ1_",
      "$s4main5otheryyF",
    ])
    static let lineStrings = SyntheticELF.strings(["$s4main6helperyyF"])

    /// A location `DW_OP_entry_value(DW_OP_reg14) [DW_OP_deref] DW_OP_plus_uconst offset`.
    static func frameSlot(_ offset: UInt64, deref: Bool = false) -> [UInt8] {
      var bytes = Bytes()
      bytes.data += [DW_OP_entry_value, 1, DW_OP_reg0 + 14]
      if deref { bytes.data.append(DW_OP_deref) }
      bytes.data.append(DW_OP_plus_uconst)
      bytes.uleb(offset)
      return bytes.data
    }

    /// `.debug_info`: a DWARF 5 compile unit (a function with inlined code, an async function's two
    /// partial functions with their variables, a method's partial function named through its
    /// declaration), then a DWARF 4 one (a function whose inlined code names a function of the first
    /// unit through `DW_FORM_ref_addr`).
    static func info(addressSize: UInt8 = 8) -> [UInt8] {
      var bytes = Bytes()
      let strings = Self.strings.offsets
      // DWARF 5 unit.
      let first = bytes.count
      bytes.append(UInt32(0))  // the unit length, patched below
      bytes.append(UInt16(5))
      bytes.data.append(DW_UT_compile)
      bytes.data.append(addressSize)
      bytes.append(UInt32(0))  // abbreviations at 0
      bytes.uleb(1)
      bytes.append(strings["swiftlang-6.3.1"] ?? 0)
      let helper = bytes.count - first
      bytes.uleb(4)
      bytes.append(lineStrings.offsets["$s4main6helperyyF"] ?? 0)
      bytes.uleb(2)
      bytes.append(UInt64(0x1000))
      bytes.append(strings["$s4main3runyyF"] ?? 0)
      bytes.uleb(3)
      bytes.append(UInt32(helper))
      bytes.uleb(12)
      bytes.uleb(0)
      for (start, name, slots) in [
        (UInt64(0x2000), "$s4main4workyyYaFTY0_", [(16, false), (24, true)]),
        (0x3000, "$s4main4workyyYaFTQ1_", [(16, false)]),
      ] {
        bytes.uleb(2)
        bytes.append(start)
        bytes.append(strings[name] ?? 0)
        for (offset, deref) in slots {
          bytes.uleb(5)
          bytes.cString("value")
          let location = frameSlot(UInt64(offset), deref: deref)
          bytes.uleb(UInt64(location.count))
          bytes.data += location
        }
        bytes.uleb(0)
      }
      // A method's declaration, and a partial function named through it whose parameter's location
      // is a location list: its frame slots are not known.
      let declaration = bytes.count - first
      bytes.uleb(8)
      bytes.cString("work")
      bytes.cString("$s4main4TypeC4workyyYaFTY0_")
      bytes.uleb(6)
      bytes.append(UInt64(0x5000))
      bytes.append(UInt32(declaration))
      bytes.uleb(7)
      bytes.append(UInt32(0x40))
      bytes.uleb(0)
      bytes.uleb(0)
      patchLength(&bytes, at: first)
      // DWARF 4 unit.
      let second = bytes.count
      bytes.append(UInt32(0))
      bytes.append(UInt16(4))
      bytes.append(UInt32(0))
      bytes.data.append(addressSize)
      bytes.uleb(1)
      bytes.append(strings["swiftlang-6.3.1"] ?? 0)
      bytes.uleb(2)
      bytes.append(UInt64(0x4000))
      bytes.append(strings["$s4main5otheryyF"] ?? 0)
      bytes.uleb(9)
      bytes.append(UInt32(first + helper))  // from the section's start: into the first unit
      bytes.uleb(0)
      patchLength(&bytes, at: second)
      return bytes.data
    }

    static func patchLength(_ bytes: inout Bytes, at start: Int) {
      let length = UInt32(bytes.count - start - 4)
      withUnsafeBytes(of: length.littleEndian) { bytes.data.replaceSubrange(start..<(start + 4), with: $0) }
    }

    static func sections(
      info: [UInt8] = info(), abbreviations: [UInt8] = abbreviations(), strings: [UInt8] = strings.bytes
    ) -> SyntheticSections {
      SyntheticSections([
        ".debug_info": info, ".debug_abbrev": abbreviations, ".debug_str": strings,
        ".debug_line_str": lineStrings.bytes,
      ])
    }

    @Test func inlinedFunctionsAreNamedThroughTheirOrigin() {
      let debugInfo = ImageDebugInfo(Self.sections())
      #expect(Set(debugInfo.functionsWithInlinedCode) == [0x1000, 0x4000])
      #expect(debugInfo.inlinedFunctions(at: 0x1000) == ["$s4main6helperyyF"])
      // The DWARF 4 unit's reference, from the section's start, lands in the first unit.
      #expect(debugInfo.inlinedFunctions(at: 0x4000) == ["$s4main6helperyyF"])
      #expect(debugInfo.inlinedFunctions(at: 0x2000).isEmpty)
    }

    @Test func asyncFrameSlotsAreReadPerPartialFunction() {
      let debugInfo = ImageDebugInfo(Self.sections())
      // `+ 24` (through the callee's context) is placed only in the suspension's partial function.
      #expect(debugInfo.frameOffsets(ofFunctionResumingAt: 0x2000) == [16, 24])
      #expect(debugInfo.frameOffsets(ofFunctionResumingAt: 0x3000) == [16, 24])
      #expect(debugInfo.deadFrameOffsets(resumingAt: 0x3000) == [24])
      #expect(debugInfo.deadFrameOffsets(resumingAt: 0x2000) == [])
      // Named through its declaration, but its parameter's location is a list: not known.
      #expect(debugInfo.frameOffsets(ofFunctionResumingAt: 0x5000) == nil)
      #expect(debugInfo.frameOffsets(ofFunctionResumingAt: 0x1000) == nil)
    }

    /// An optimised unit's frame slots are not read (one slot may serve several variables there).
    @Test func optimisedUnitsGiveNoFrameSlots() {
      let debugInfo = ImageDebugInfo(Self.sections(abbreviations: Self.abbreviations(optimized: true)))
      #expect(debugInfo.frameOffsets(ofFunctionResumingAt: 0x2000) == nil)
      #expect(debugInfo.inlinedFunctions(at: 0x1000) == ["$s4main6helperyyF"])
    }

    @Test func missingSectionsGiveNothing() {
      let noInfo = SyntheticSections([".debug_abbrev": Self.abbreviations()])
      #expect(ImageDebugInfo(noInfo).functionsWithInlinedCode.isEmpty)
      let noAbbreviations = SyntheticSections([".debug_info": Self.info()])
      #expect(ImageDebugInfo(noAbbreviations).functionsWithInlinedCode.isEmpty)
      // Without `.debug_str` the functions are still found; their names are not.
      let noStrings = SyntheticSections([
        ".debug_info": Self.info(), ".debug_abbrev": Self.abbreviations(),
        ".debug_line_str": Self.lineStrings.bytes,
      ])
      #expect(ImageDebugInfo(noStrings).inlinedFunctions(at: 0x1000) == ["$s4main6helperyyF"])
      #expect(ImageDebugInfo(noStrings).frameOffsets(ofFunctionResumingAt: 0x2000) == nil)
    }

    /// Forms and layouts the reader does not read stop their unit (what was read before stays);
    /// the other units are read, each on its own.
    @Test func unreadableUnitsAreLeftOut() {
      // An unknown form in the inlined subroutine's abbreviation: the first unit stops there (the
      // second unit's function, whose inlined code is named through `DW_FORM_ref_addr`, is read).
      let unknown = ImageDebugInfo(Self.sections(abbreviations: Self.abbreviations(unknownForm: true)))
      #expect(unknown.functionsWithInlinedCode == [0x4000])
      #expect(unknown.inlinedFunctions(at: 0x1000).isEmpty)
      // 4-byte addresses: both units are skipped.
      #expect(ImageDebugInfo(Self.sections(info: Self.info(addressSize: 4))).functionsWithInlinedCode.isEmpty)
      // The 64-bit format (a unit length of 0xFFFFFFFF) is not read.
      var wide = Self.info()
      wide.replaceSubrange(0..<4, with: [0xFF, 0xFF, 0xFF, 0xFF])
      #expect(ImageDebugInfo(Self.sections(info: wide)).functionsWithInlinedCode.isEmpty)
      // A unit that says it is longer than the section: nothing from it on.
      var long = Self.info()
      long[2] = 0x10
      #expect(ImageDebugInfo(Self.sections(info: long)).functionsWithInlinedCode.isEmpty)
    }

    /// Every cut of each section, and every byte of `.debug_info` and `.debug_abbrev` replaced,
    /// reads without a crash, and finds no function the whole sections do not have.
    @Test func cutOrCorruptedSectionsNeverCrash() {
      let whole = Set(ImageDebugInfo(Self.sections()).functionsWithInlinedCode)
      let info = Self.info()
      let abbreviations = Self.abbreviations()
      let strings = Self.strings.bytes
      func probe(_ sections: SyntheticSections, corrupted: Bool) {
        let debugInfo = ImageDebugInfo(sections)
        let found = Set(debugInfo.functionsWithInlinedCode)
        if !corrupted { #expect(found.isSubset(of: whole)) }
        for start in found.union(whole) { _ = debugInfo.inlinedFunctions(at: start) }
        for start: UInt in [0x2000, 0x3000, 0x5000] {
          _ = debugInfo.frameOffsets(ofFunctionResumingAt: start)
          _ = debugInfo.deadFrameOffsets(resumingAt: start)
        }
      }
      for length in 0..<info.count {
        probe(Self.sections(info: Array(info.prefix(length))), corrupted: false)
      }
      for length in 0..<abbreviations.count {
        probe(Self.sections(abbreviations: Array(abbreviations.prefix(length))), corrupted: false)
      }
      for length in 0..<strings.count {
        probe(Self.sections(strings: Array(strings.prefix(length))), corrupted: false)
      }
      for position in info.indices {
        for value: UInt8 in [0x00, 0x80, 0xFF] {
          var changed = info
          changed[position] = value
          probe(Self.sections(info: changed), corrupted: true)
        }
      }
      for position in abbreviations.indices {
        for value: UInt8 in [0x00, 0x80, 0xFF] {
          var changed = abbreviations
          changed[position] = value
          probe(Self.sections(abbreviations: changed), corrupted: true)
        }
      }
    }

    /// The sections read from an ELF image (its section names) give the same facts.
    @Test func sectionsAreFoundInAnELFImage() throws {
      var elf = SyntheticELF()
      elf.add(.init(name: ".text", type: SHT_PROGBITS, bytes: [0xC3]))
      elf.add(.init(name: ".debug_abbrev", type: SHT_PROGBITS, bytes: Self.abbreviations()))
      elf.add(.init(name: ".debug_info", type: SHT_PROGBITS, bytes: Self.info()))
      elf.add(.init(name: ".debug_str", type: SHT_PROGBITS, bytes: Self.strings.bytes))
      elf.add(.init(name: ".debug_line_str", type: SHT_PROGBITS, bytes: Self.lineStrings.bytes))
      let owned = OwnedBytes(elf.bytes)
      let debugInfo = ImageDebugInfo(try ELFFile(bytes: owned.bytes))
      #expect(debugInfo.inlinedFunctions(at: 0x4000) == ["$s4main6helperyyF"])
      #expect(debugInfo.deadFrameOffsets(resumingAt: 0x3000) == [24])
    }

    @Test func partialFunctionNames() {
      let closure = "$s4twin8ConsumerC15startRecheckingyyFyyYacfU_"
      #expect(AsyncFunctionNames.asyncFunction(ofPartialFunction: closure + "TQ1_") == closure)
      #expect(AsyncFunctionNames.asyncFunction(ofPartialFunction: closure + "TY12_") == closure)
      #expect(AsyncFunctionNames.asyncFunction(ofPartialFunction: closure + "TA") == nil)
      #expect(AsyncFunctionNames.asyncFunction(ofPartialFunction: closure) == nil)
      #expect(AsyncFunctionNames.asyncFunction(ofPartialFunction: "TQ0_") == nil)
    }
  }
#endif
