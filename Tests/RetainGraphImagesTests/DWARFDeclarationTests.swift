// The readers are built with the package trait BinaryReaders only (Package.swift).
#if BinaryReaders
  import CRetainGraphELF
  import RetainGraphImages
  import Testing

  /// Where the DWARF says functions and types are declared, on sections made in the test: a DWARF 4
  /// unit (its line program's header with an include directory, `DW_AT_comp_dir`) and a DWARF 5 unit
  /// (directory and file entry formats, `DW_FORM_line_strp` paths, file indices from 0).
  struct DWARFDeclarationTests {
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
        [(DW_AT_stmt_list, DW_FORM_sec_offset), (DW_AT_comp_dir, DW_FORM_string)])
      add(2, DW_TAG_structure_type, true, [(DW_AT_linkage_name, DW_FORM_string)])
      add(
        3, DW_TAG_subprogram, false,
        [
          (DW_AT_linkage_name, DW_FORM_string), (DW_AT_decl_file, DW_FORM_data1),
          (DW_AT_decl_line, DW_FORM_data2),
        ])
      // An accessor: no declaration line (Swift's synthesised accessors have none).
      add(4, DW_TAG_subprogram, false, [(DW_AT_linkage_name, DW_FORM_string)])
      add(
        5, DW_TAG_subprogram, false,
        [
          (DW_AT_linkage_name, DW_FORM_string), (DW_AT_decl_file, DW_FORM_udata),
          (DW_AT_decl_line, DW_FORM_udata),
        ])
      bytes.data.append(0)
      return bytes.data
    }()

    static let lineStrings = SyntheticELF.strings(["/work/five", "Sources/Five.swift"])

    /// `.debug_line`: a DWARF 4 header at 0 (directories `Sources/App` and `/abs`; files
    /// `Screen.swift` in the first, `Other.swift` in the second, `Top.swift` in the compile
    /// directory), then a DWARF 5 header.
    static func lines() -> (bytes: [UInt8], second: Int) {
      var bytes = Bytes()
      bytes.append(UInt32(0))
      bytes.append(UInt16(4))
      bytes.append(UInt32(0))  // header_length (not used by the reader)
      // min_inst_length, max_ops, default_is_stmt, line_base, line_range, opcode_base
      bytes.data += [1, 1, 1, 0xFB, 14, 13]
      bytes.data += [0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1]  // standard_opcode_lengths
      bytes.cString("Sources/App")
      bytes.cString("/abs")
      bytes.data.append(0)
      for (name, directory) in [("Screen.swift", 1), ("Other.swift", 2), ("Top.swift", 0)] {
        bytes.cString(name)
        bytes.uleb(UInt64(directory))
        bytes.uleb(0)
        bytes.uleb(0)
      }
      bytes.data.append(0)
      DWARFReaderTests.patchLength(&bytes, at: 0)
      let second = bytes.count
      bytes.append(UInt32(0))
      bytes.append(UInt16(5))
      bytes.data += [8, 0]  // address_size, segment_selector_size
      bytes.append(UInt32(0))
      bytes.data += [1, 1, 1, 0xFB, 14, 13]
      bytes.data += [0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1]
      // Directories: one format (path, line_strp), one entry.
      bytes.data.append(1)
      bytes.uleb(DW_LNCT_path)
      bytes.uleb(DW_FORM_line_strp)
      bytes.uleb(1)
      bytes.append(lineStrings.offsets["/work/five"] ?? 0)
      // Files: (path, line_strp), (directory index, udata), (MD5, data16); one entry.
      bytes.data.append(3)
      bytes.uleb(DW_LNCT_path)
      bytes.uleb(DW_FORM_line_strp)
      bytes.uleb(DW_LNCT_directory_index)
      bytes.uleb(DW_FORM_udata)
      bytes.uleb(5)  // DW_LNCT_MD5
      bytes.uleb(DW_FORM_data16)
      bytes.uleb(1)
      bytes.append(lineStrings.offsets["Sources/Five.swift"] ?? 0)
      bytes.uleb(0)
      bytes.data += [UInt8](repeating: 0xAB, count: 16)
      DWARFReaderTests.patchLength(&bytes, at: second)
      return (bytes.data, second)
    }

    static func info(secondLines: Int) -> [UInt8] {
      var bytes = Bytes()
      let first = bytes.count
      bytes.append(UInt32(0))
      bytes.append(UInt16(4))
      bytes.append(UInt32(0))
      bytes.data.append(8)
      bytes.uleb(1)
      bytes.append(UInt32(0))
      bytes.cString("/work/app")
      bytes.uleb(2)
      bytes.cString("$s3App6ScreenCD")
      bytes.uleb(3)
      bytes.cString("$s3App6ScreenCfd")
      bytes.data.append(1)
      bytes.append(UInt16(7))
      bytes.uleb(4)
      bytes.cString("$s3App6ScreenC5titleSSvg")
      bytes.uleb(3)
      bytes.cString("$s3App6ScreenCACycfcyycfU_")
      bytes.data.append(2)
      bytes.append(UInt16(300))
      bytes.uleb(0)
      bytes.uleb(5)
      bytes.cString("$s3App3topyyF")
      bytes.uleb(3)
      bytes.uleb(12)
      // A declaration naming a file the table does not have: left out.
      bytes.uleb(5)
      bytes.cString("$s3App7missingyyF")
      bytes.uleb(9)
      bytes.uleb(1)
      bytes.uleb(0)
      DWARFReaderTests.patchLength(&bytes, at: first)
      let second = bytes.count
      bytes.append(UInt32(0))
      bytes.append(UInt16(5))
      bytes.data.append(DW_UT_compile)
      bytes.data.append(8)
      bytes.append(UInt32(0))
      bytes.uleb(1)
      bytes.append(UInt32(secondLines))
      bytes.cString("/work/five")
      bytes.uleb(5)
      bytes.cString("$s4Five3runyyF")
      bytes.uleb(0)
      bytes.uleb(41)
      bytes.uleb(0)
      DWARFReaderTests.patchLength(&bytes, at: second)
      return bytes.data
    }

    static func debugInfo(lines: [UInt8]? = nil) -> ImageDebugInfo {
      let (made, second) = Self.lines()
      return ImageDebugInfo(
        SyntheticSections([
          ".debug_info": info(secondLines: second), ".debug_abbrev": abbreviations,
          ".debug_line": lines ?? made, ".debug_line_str": lineStrings.bytes,
        ]))
    }

    @Test func functionsAreDeclaredInTheirUnitsFiles() {
      let found = Self.debugInfo().functionDeclarations { _ in true }
      #expect(
        found == [
          .init(mangledName: "$s3App3topyyF", file: "/work/app/Top.swift", line: 12),
          .init(mangledName: "$s3App6ScreenCACycfcyycfU_", file: "/abs/Other.swift", line: 300),
          .init(mangledName: "$s3App6ScreenCfd", file: "/work/app/Sources/App/Screen.swift", line: 7),
          .init(mangledName: "$s4Five3runyyF", file: "/work/five/Sources/Five.swift", line: 41),
        ])
      let closures = Self.debugInfo().functionDeclarations { String(cString: $0).hasSuffix("fU_") }
      #expect(closures.map(\.line) == [300])
    }

    @Test func aTypesFilesAreThoseOfItsFunctions() {
      let types = Self.debugInfo().typeFiles { _ in true }
      #expect(
        types == [
          .init(
            mangledName: "$s3App6ScreenCD",
            files: ["/work/app/Sources/App/Screen.swift", "/abs/Other.swift"])
        ])
    }

    /// A line program header cut short, or of an unknown version, gives no files: no declaration.
    @Test func unreadableLineProgramsGiveNoFiles() {
      let (made, _) = Self.lines()
      #expect(Self.debugInfo(lines: Array(made.prefix(20))).functionDeclarations { _ in true }.isEmpty)
      var version = made
      version[4] = 9
      let found = Self.debugInfo(lines: version).functionDeclarations { _ in true }
      #expect(found.map(\.mangledName) == ["$s4Five3runyyF"])
      #expect(Self.debugInfo(lines: []).typeFiles { _ in true }.isEmpty)
    }
  }
#endif
