// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  internal import CRetainGraphELF

  /// One unit's header in `.debug_info`.
  struct DWARFUnitHeader {
    /// The offset of its length field (unit-relative references count from it).
    var start: Int
    /// The offset just past the unit.
    var end: Int
    var version: Int
    var abbreviationOffset: Int
    var addressSize: UInt8
    /// The offset of its first entry.
    var entriesStart: Int
    /// A compile or partial unit: DWARF 5's type and skeleton units name no code and are not read.
    var isCompileUnit: Bool
  }

  /// The units of `.debug_info`, found by hopping from one header to the next (no entry is read),
  /// and the address ranges that say which unit holds an address: `.debug_aranges` where the
  /// producer wrote it, otherwise (and for any unit it leaves out) each unit's own `DW_AT_low_pc`
  /// and `DW_AT_high_pc` or `DW_AT_ranges`, read from its first entry only. This is what
  /// symbolizers (`llvm-symbolizer`, `addr2line`) do to read one unit per address.
  struct DWARFUnitTable {
    let headers: [DWARFUnitHeader]
    /// Why the headers stopped before the section's end (a length past it, 64-bit DWARF); nil when
    /// every header was read.
    let error: DWARFError?

    init(info: UnsafeRawBufferPointer) {
      var headers: [DWARFUnitHeader] = []
      var error: DWARFError?
      var start = 0
      while start < info.count {
        var cursor = DWARFCursor(info, at: start)
        let length = Int(cursor.u32())
        // 0xFFFFFFFF announces the 64-bit format, not read here; 0xFFFFFFF0… are reserved.
        guard !cursor.overran, length < 0xFFFF_FFF0, length <= info.count - start - 4, length >= 7 else {
          error = .truncated(section: ".debug_info", offset: start)
          break
        }
        let end = start + 4 + length
        let version = Int(cursor.u16())
        var header = DWARFUnitHeader(
          start: start, end: end, version: version, abbreviationOffset: 0, addressSize: 0, entriesStart: 0,
          isCompileUnit: true)
        switch version {
        case 2...4:
          header.abbreviationOffset = Int(cursor.u32())
          header.addressSize = cursor.byte()
        case 5:
          let unitType = cursor.byte()
          header.isCompileUnit = unitType == DW_UT_compile || unitType == DW_UT_partial
          header.addressSize = cursor.byte()
          header.abbreviationOffset = Int(cursor.u32())
        default:
          header.isCompileUnit = false
        }
        header.entriesStart = cursor.offset
        if !cursor.overran, cursor.offset <= end { headers.append(header) }
        start = end
      }
      self.headers = headers
      self.error = error
    }

    /// The index of the unit whose bytes hold offset `offset` of `.debug_info`; nil when none does.
    func unit(holding offset: Int) -> Int? {
      var low = 0
      var high = headers.count
      while low < high {
        let middle = (low + high) / 2
        if headers[middle].start <= offset { low = middle + 1 } else { high = middle }
      }
      guard low > 0, offset < headers[low - 1].end else { return nil }
      return low - 1
    }
  }

  /// Address ranges sorted by their start, each with the unit that holds it.
  struct DWARFAddressMap {
    private let starts: [UInt]
    private let ends: [UInt]
    private let units: [Int]

    /// `ranges` in any order; empty ones and those at address 0 (a function the linker dropped
    /// keeps its unit's range there) are left out.
    init(_ ranges: [(start: UInt, end: UInt, unit: Int)]) {
      var kept: [(start: UInt, end: UInt, unit: Int)] = []
      var keys: [UInt] = []
      for range in ranges where range.start != 0 && range.start < range.end {
        kept.append(range)
        keys.append(range.start)
      }
      var starts: [UInt] = []
      var ends: [UInt] = []
      var units: [Int] = []
      for index in sortedOrder(of: keys) {
        starts.append(kept[index].start)
        ends.append(kept[index].end)
        units.append(kept[index].unit)
      }
      self.starts = starts
      self.ends = ends
      self.units = units
    }

    var count: Int { starts.count }

    /// The unit whose ranges hold `address`; nil when none does.
    func unit(containing address: UInt) -> Int? {
      var low = 0
      var high = starts.count
      while low < high {
        let middle = (low + high) / 2
        if starts[middle] <= address { low = middle + 1 } else { high = middle }
      }
      // Ranges of one image do not overlap; a few steps back tolerate one that encloses others.
      var index = low - 1
      while index >= 0, index >= low - 4 {
        if address < ends[index] { return units[index] }
        index -= 1
      }
      return nil
    }

    /// The ranges of `.debug_aranges` (DWARF 2 to 5, 32-bit format, 8-byte addresses), each with
    /// the index of the unit it names (`unitsByOffset`: a unit's offset in `.debug_info` → index).
    /// - Throws: ``DWARFError/truncated(section:offset:)`` when a set's length or tuples end past
    ///   the section.
    static func addressRanges(
      _ bytes: UnsafeRawBufferPointer, unitsByOffset: [Int: Int]
    ) throws(DWARFError) -> (ranges: [(start: UInt, end: UInt, unit: Int)], covered: Set<Int>) {
      var ranges: [(start: UInt, end: UInt, unit: Int)] = []
      var covered: Set<Int> = []
      var offset = 0
      while offset < bytes.count {
        var cursor = DWARFCursor(bytes, at: offset)
        let length = Int(cursor.u32())
        guard !cursor.overran, length < 0xFFFF_FFF0, length <= bytes.count - offset - 4 else {
          throw .truncated(section: ".debug_aranges", offset: offset)
        }
        let end = offset + 4 + length
        _ = cursor.u16()  // version
        let unitOffset = Int(cursor.u32())
        let addressSize = cursor.byte()
        let segmentSize = cursor.byte()
        defer { offset = end }
        guard addressSize == 8, segmentSize == 0, let unit = unitsByOffset[unitOffset] else { continue }
        // The tuples start at a multiple of twice the address size from the set's start.
        let header = cursor.offset - offset
        cursor.skip((16 - header % 16) % 16)
        while cursor.offset + 16 <= end {
          let start = UInt(cursor.u64())
          let size = UInt(cursor.u64())
          if start == 0, size == 0 { break }
          ranges.append((start, start &+ size, unit))
        }
        guard !cursor.overran else { throw .truncated(section: ".debug_aranges", offset: offset) }
        covered.insert(unit)
      }
      return (ranges, covered)
    }

    /// The ranges a unit's `DW_AT_ranges` names: in `.debug_ranges` (DWARF 2 to 4: address pairs
    /// from `base`, a base address selection entry, then the end of the list) or `.debug_rnglists`
    /// (DWARF 5: the `DW_RLE_*` entries that need no `.debug_addr`).
    /// - Throws: ``DWARFError/truncated(section:offset:)`` when the list ends past its section or
    ///   uses an entry this reader does not read.
    static func rangeList(
      at offset: Int, version: Int, base: UInt, in sections: DWARFSections
    ) throws(DWARFError) -> [(start: UInt, end: UInt)] {
      var found: [(start: UInt, end: UInt)] = []
      var base = base
      if version < 5 {
        guard let bytes = sections.ranges else { throw .truncated(section: ".debug_ranges", offset: offset) }
        var cursor = DWARFCursor(bytes, at: offset)
        while true {
          let start = UInt(cursor.u64())
          let end = UInt(cursor.u64())
          guard !cursor.overran else { throw .truncated(section: ".debug_ranges", offset: offset) }
          if start == 0, end == 0 { return found }
          if start == UInt.max {
            base = end
          } else {
            found.append((base &+ start, base &+ end))
          }
        }
      }
      guard let bytes = sections.rangeLists else {
        throw .truncated(section: ".debug_rnglists", offset: offset)
      }
      var cursor = DWARFCursor(bytes, at: offset)
      while true {
        let kind = cursor.byte()
        switch kind {
        case DW_RLE_end_of_list:
          guard !cursor.overran else { throw .truncated(section: ".debug_rnglists", offset: offset) }
          return found
        case DW_RLE_offset_pair:
          let start = UInt(cursor.uleb())
          let end = UInt(cursor.uleb())
          found.append((base &+ start, base &+ end))
        case DW_RLE_base_address:
          base = UInt(cursor.u64())
        case DW_RLE_start_end:
          let start = UInt(cursor.u64())
          found.append((start, UInt(cursor.u64())))
        case DW_RLE_start_length:
          let start = UInt(cursor.u64())
          found.append((start, start &+ UInt(cursor.uleb())))
        default:  // DW_RLE_base_addressx, startx_endx, startx_length: indices into .debug_addr
          throw .truncated(section: ".debug_rnglists", offset: cursor.offset - 1)
        }
        guard !cursor.overran else { throw .truncated(section: ".debug_rnglists", offset: offset) }
      }
    }
  }
#endif
