// The readers are built with the package trait BinaryReaders only (Package.swift).
#if BinaryReaders
  import CRetainGraphELF
  import RetainGraphImages
  import Testing

  /// Lookups by address on DWARF made in the test, as symbolizers do them: the unit that holds an
  /// address (from `.debug_aranges`, or else each unit's `DW_AT_low_pc`/`DW_AT_high_pc` or
  /// `DW_AT_ranges` in `.debug_ranges` or `.debug_rnglists`), then that unit alone. They give what
  /// the whole-image scan gives, read each unit at most once, and a cut or corrupt section throws a
  /// `DWARFError` rather than crash.
  struct DWARFUnitLookupTests {
    static let DW_AT_high_pc: UInt64 = 0x12
    static let DW_AT_ranges: UInt64 = 0x55

    /// Codes: 1 a DWARF 4 unit with `low_pc`/`high_pc` (a size), 2 a unit with `low_pc` and
    /// `DW_AT_ranges`, 3 a function with its declaration, 4 a function without one (a partial apply
    /// forwarder), 5 a unit with neither (its place is read from its functions), 6 a declaration
    /// without code (a specialisation an optimised build declared the line on).
    static let abbreviations: [UInt8] = {
      var bytes = Bytes()
      func add(_ code: UInt64, _ tag: UInt64, _ children: Bool, _ attributes: [(UInt64, UInt64)]) {
        bytes.uleb(code)
        bytes.uleb(tag)
        bytes.data.append(children ? 1 : 0)
        for (name, form) in attributes {
          bytes.uleb(name)
          bytes.uleb(form)
        }
        bytes.data += [0, 0]
      }
      add(
        1, DW_TAG_compile_unit, true,
        [
          (DW_AT_stmt_list, DW_FORM_sec_offset), (DW_AT_comp_dir, DW_FORM_string),
          (DW_AT_low_pc, DW_FORM_addr),
          (DW_AT_high_pc, DW_FORM_data4),
        ])
      add(
        2, DW_TAG_compile_unit, true,
        [
          (DW_AT_stmt_list, DW_FORM_sec_offset), (DW_AT_comp_dir, DW_FORM_string),
          (DW_AT_low_pc, DW_FORM_addr),
          (DW_AT_ranges, DW_FORM_sec_offset),
        ])
      add(
        3, DW_TAG_subprogram, false,
        [
          (DW_AT_low_pc, DW_FORM_addr), (DW_AT_linkage_name, DW_FORM_string),
          (DW_AT_decl_file, DW_FORM_data1),
          (DW_AT_decl_line, DW_FORM_data2),
        ])
      add(4, DW_TAG_subprogram, false, [(DW_AT_low_pc, DW_FORM_addr), (DW_AT_linkage_name, DW_FORM_string)])
      add(
        5, DW_TAG_compile_unit, true,
        [(DW_AT_stmt_list, DW_FORM_sec_offset), (DW_AT_comp_dir, DW_FORM_string)])
      add(
        6, DW_TAG_subprogram, false,
        [
          (DW_AT_linkage_name, DW_FORM_string), (DW_AT_decl_file, DW_FORM_data1),
          (DW_AT_decl_line, DW_FORM_data2),
        ])
      bytes.data.append(0)
      return bytes.data
    }()

    /// `.debug_line`: one DWARF 4 header at 0 whose file 1 is `Sources/App/Screen.swift`.
    static let lines: [UInt8] = {
      var bytes = Bytes()
      bytes.append(UInt32(0))
      bytes.append(UInt16(4))
      bytes.append(UInt32(0))
      bytes.data += [1, 1, 1, 0xFB, 14, 13]
      bytes.data += [0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1]
      bytes.cString("Sources/App")
      bytes.data.append(0)
      bytes.cString("Screen.swift")
      bytes.uleb(1)
      bytes.uleb(0)
      bytes.uleb(0)
      bytes.data.append(0)
      DWARFReaderTests.patchLength(&bytes, at: 0)
      return bytes.data
    }()

    /// A function: start (0: a declaration without code), linkage name, declaration line (nil: none).
    typealias Function = (start: UInt64, name: String, line: UInt16?)

    static let first: [Function] = [
      (0x1000, "$s3App6ScreenC4loadyyFyycfU_", 10), (0x1080, "$s3App6ScreenC4loadyyFyycfU_TA", nil),
    ]
    static let second: [Function] = [
      (0x2000, "$s3App6ScreenC4saveyyF", 20), (0x3000, "$s3App6ScreenCfd", 30),
    ]
    static let third: [Function] = [
      (0x4000, "$s3App3topyyF", 40), (0x4040, "$s3App3topyyFyycfU_", 41),
      (0x4060, "$s3App3topyyFyycfU0_", nil),
      (0, "$s3App3topyyFyycfU0_Tf4nn_g", 42),
    ]
    static let fourth: [Function] = [(0x5000, "$s3App5aloneyyF", 50)]

    static func function(_ function: Function, into bytes: inout Bytes) {
      bytes.uleb(function.start == 0 ? 6 : function.line == nil ? 4 : 3)
      if function.start != 0 { bytes.append(function.start) }
      bytes.cString(function.name)
      if let line = function.line {
        bytes.data.append(1)
        bytes.append(line)
      }
    }

    /// `.debug_info`: unit 0 (DWARF 4, `low_pc` 0x1000 and `high_pc` a size of 0x100), unit 1
    /// (DWARF 4, `DW_AT_ranges` in `.debug_ranges`: 0x2000–0x2100 and, after a base address
    /// selection, 0x3000–0x3040), unit 2 (DWARF 5, `DW_AT_ranges` in `.debug_rnglists`: a base
    /// address 0x4000 and an offset pair 0–0x80), unit 3 (no ranges at all). Returns the units'
    /// offsets too.
    static func info() -> (bytes: [UInt8], units: [Int]) {
      var bytes = Bytes()
      var units: [Int] = []
      for (index, functions) in [first, second, third, fourth].enumerated() {
        let start = bytes.count
        units.append(start)
        bytes.append(UInt32(0))
        if index == 2 {
          bytes.append(UInt16(5))
          bytes.data.append(DW_UT_compile)
          bytes.data.append(8)
          bytes.append(UInt32(0))
        } else {
          bytes.append(UInt16(4))
          bytes.append(UInt32(0))
          bytes.data.append(8)
        }
        switch index {
        case 0:
          bytes.uleb(1)
          bytes.append(UInt32(0))
          bytes.cString("/work/app")
          bytes.append(UInt64(0x1000))
          bytes.append(UInt32(0x100))
        case 3:
          bytes.uleb(5)
          bytes.append(UInt32(0))
          bytes.cString("/work/app")
        default:
          bytes.uleb(2)
          bytes.append(UInt32(0))
          bytes.cString("/work/app")
          bytes.append(UInt64(0))
          bytes.append(UInt32(0))  // both range lists start at 0 of their sections
        }
        for function in functions { Self.function(function, into: &bytes) }
        bytes.uleb(0)
        DWARFReaderTests.patchLength(&bytes, at: start)
      }
      return (bytes.data, units)
    }

    static let ranges: [UInt8] = {
      var bytes = Bytes()
      for value: UInt64 in [0x2000, 0x2100, .max, 0x3000, 0, 0x40, 0, 0] { bytes.append(value) }
      return bytes.data
    }()

    static let rangeLists: [UInt8] = {
      var bytes = Bytes()
      bytes.data.append(DW_RLE_base_address)
      bytes.append(UInt64(0x4000))
      bytes.data.append(DW_RLE_offset_pair)
      bytes.uleb(0)
      bytes.uleb(0x80)
      bytes.data.append(DW_RLE_end_of_list)
      return bytes.data
    }()

    /// `.debug_aranges`: one set for unit 1 (0x2000–0x2100 and 0x3000–0x3040); the others are
    /// placed by their own ranges.
    static func addressRanges(unit: Int) -> [UInt8] {
      var bytes = Bytes()
      bytes.append(UInt32(0))
      bytes.append(UInt16(2))
      bytes.append(UInt32(unit))
      bytes.data += [8, 0]
      bytes.data += [UInt8](repeating: 0, count: 4)  // to a multiple of 16 from the set's start
      for value: UInt64 in [0x2000, 0x100, 0x3000, 0x40, 0, 0] { bytes.append(value) }
      DWARFReaderTests.patchLength(&bytes, at: 0)
      return bytes.data
    }

    static func debugInfo(
      info: [UInt8]? = nil, withAddressRanges: Bool = false, addressRanges: [UInt8]? = nil,
      ranges: [UInt8] = ranges, abbreviations: [UInt8] = abbreviations
    ) -> ImageDebugInfo {
      let (made, units) = Self.info()
      var sections: [String: [UInt8]] = [
        ".debug_info": info ?? made, ".debug_abbrev": abbreviations, ".debug_line": lines,
        ".debug_ranges": ranges, ".debug_rnglists": rangeLists,
      ]
      if withAddressRanges {
        sections[".debug_aranges"] = addressRanges ?? Self.addressRanges(unit: units[1])
      }
      return ImageDebugInfo(SyntheticSections(sections))
    }

    static let everyFunction = first + second + third + fourth

    @Test(arguments: [false, true])
    func lookupsByAddressGiveWhatTheWholeScanGives(withAddressRanges: Bool) throws {
      let whole = Self.debugInfo().functionDeclarations { _ in true }
      #expect(whole.count == 7)
      let debugInfo = Self.debugInfo(withAddressRanges: withAddressRanges)
      for function in Self.everyFunction where function.line != nil && function.start != 0 {
        let found = try debugInfo.functionDeclaration(at: UInt(function.start))
        #expect(found == whole.first { $0.mangledName == function.name })
        #expect(found?.file == "/work/app/Sources/App/Screen.swift")
        #expect(found?.line == Int(function.line ?? 0))
      }
      // An address no unit holds, and one inside a unit but at no function's start.
      #expect(try debugInfo.functionDeclaration(at: 0x9000) == nil)
      #expect(try debugInfo.functionDeclaration(at: 0x1010) == nil)
    }

    /// A partial apply forwarder has no declaration of its own: its closure's, by linkage name, in
    /// the same unit.
    @Test func aForwarderIsDeclaredWhereItsClosureIs() throws {
      let debugInfo = Self.debugInfo()
      #expect(try debugInfo.functionDeclaration(at: 0x1080) == nil)
      let found = try debugInfo.functionDeclaration(
        at: 0x1080, linkageNames: ["$s3App6ScreenC4loadyyFyycfU_TA", "$s3App6ScreenC4loadyyFyycfU_"])
      #expect(found?.mangledName == "$s3App6ScreenC4loadyyFyycfU_")
      #expect(found?.line == 10)
    }

    /// In an optimised build a function's line may be declared only on the specialisation its code
    /// was made from (`…fU0_Tf4nn_g`): found by that suffix, in the function's unit.
    @Test func aSpecialisationsDeclarationPlacesItsFunction() throws {
      let debugInfo = Self.debugInfo()
      let found = try debugInfo.functionDeclaration(at: 0x4060, linkageNames: ["$s3App3topyyFyycfU0_"])
      #expect(found?.mangledName == "$s3App3topyyFyycfU0_Tf4nn_g")
      #expect(found?.line == 42)
      #expect(try debugInfo.functionDeclaration(at: 0x4060) == nil)
    }

    /// Each unit's entries are read at most once, and only the units asked about.
    @Test(arguments: [false, true])
    func eachUnitIsReadOnce(withAddressRanges: Bool) throws {
      let debugInfo = Self.debugInfo(withAddressRanges: withAddressRanges)
      #expect(debugInfo.unitsRead == 0)
      _ = try debugInfo.functionDeclaration(at: 0x2000)
      #expect(debugInfo.unitsRead == 1)
      _ = try debugInfo.functionDeclaration(at: 0x3000)
      _ = try debugInfo.functionDeclaration(at: 0x2000)
      #expect(debugInfo.unitsRead == 1)
      _ = try debugInfo.functionDeclaration(at: 0x4040)
      #expect(debugInfo.unitsRead == 2)
      // The unit without ranges is read to find a function in it, once.
      #expect(try debugInfo.functionDeclaration(at: 0x5000)?.line == 50)
      #expect(debugInfo.unitsRead == 3)
      _ = debugInfo.functionDeclarations { _ in true }
      _ = debugInfo.functionDeclarations { _ in true }
      #expect(debugInfo.unitsRead == 4)
    }

    /// Corrupt address tables and units throw a typed error naming the section and the offset.
    @Test func corruptSectionsThrowTypedErrors() {
      // `.debug_aranges` whose set claims more bytes than there are.
      var aranges = Self.addressRanges(unit: Self.info().units[1])
      aranges[0] = 0xF0
      let badAranges = Self.debugInfo(withAddressRanges: true, addressRanges: aranges)
      #expect(throws: DWARFError.truncated(section: ".debug_aranges", offset: 0)) {
        try badAranges.functionDeclaration(at: 0x9000)
      }
      // A range list cut short: its unit is read to find its functions instead.
      let cutRanges = Self.debugInfo(ranges: Array(Self.ranges.prefix(20)))
      #expect((try? cutRanges.functionDeclaration(at: 0x2000))?.line == 20)
      #expect(throws: DWARFError.truncated(section: ".debug_ranges", offset: 0)) {
        try cutRanges.functionDeclaration(at: 0x9000)
      }
      // An entry whose abbreviation the table does not have, in the unit asked about.
      var (info, units) = Self.info()
      let code = units[1] + 11 + 1 + 4 + 10 + 8 + 4  // the first function's code in unit 1
      #expect(info[code] == 3)
      info[code] = 0x70
      #expect(throws: DWARFError.unknownAbbreviation(code: 0x70, offset: code)) {
        try Self.debugInfo(info: info).functionDeclaration(at: 0x2000)
      }
    }

    /// `.debug_info` cut at every byte, with and without `.debug_aranges`: answers are right, nil,
    /// or a thrown `DWARFError`; never a crash or a wrong line.
    @Test func cutInfoNeverCrashes() {
      let (info, _) = Self.info()
      for length in 0..<info.count {
        for withAddressRanges in [false, true] {
          let debugInfo = Self.debugInfo(
            info: Array(info.prefix(length)), withAddressRanges: withAddressRanges)
          for function in Self.everyFunction where function.line != nil && function.start != 0 {
            do {
              if let found = try debugInfo.functionDeclaration(at: UInt(function.start)) {
                #expect(found.line == Int(function.line ?? 0))
              }
            } catch {
              #expect(!error.description.isEmpty)
            }
          }
        }
      }
    }
  }
#endif
