// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  internal import RetainGraphSupport
  /// What an image's DWARF says that the walk uses (`RetainGraphRuntime/README.md`, "Method references
  /// in optimised builds" and "Suspended frames"): the functions an optimised build inlined into each
  /// function (`DW_TAG_inlined_subroutine` under the `DW_TAG_subprogram` whose `DW_AT_low_pc` is the
  /// function's address, each naming its origin's `DW_AT_linkage_name`), and the async-context
  /// offsets of each async partial function's variables in unoptimised code.
  ///
  /// Read unit by unit, as a question needs it: a function's unit is found by its address (the
  /// `.debug_aranges` table, or each unit's own ranges read once into a sorted table), and only
  /// that unit's entries are read, each unit at most once for the process. Anything not understood
  /// (64-bit DWARF, an unknown form, a missing section) gives no names: a method reference is then
  /// shown as a closure, as before.
  package final class ImageDebugInfo: @unchecked Sendable {
    /// What one unit says, read when a question first needs it and kept for the process.
    final class UnitFacts: @unchecked Sendable {
      /// Per function start (virtual address): the DIE offsets of the functions inlined into it.
      let inlined: [UInt: [Int]]
      /// Per DIE offset: its linkage name (a C string in the source's bytes).
      let names: [Int: UnsafePointer<CChar>]
      /// Per DIE offset without a linkage name: the DIE it refers to (abstract origin or specification).
      let origins: [Int: Int]
      /// Per async partial function (`…TQn_`, `…TYn_`) start: the async-context offsets its variables
      /// name, or nil when a variable's location is not one this reader understands.
      let frameSlots: [UInt: [Int]?]
      /// Per async function (its mangled name without the partial-function suffix): the starts of its
      /// partial functions; per partial function start: its async function's name.
      let partialFunctions: [String: [UInt]]
      let asyncFunctions: [UInt: String]
      /// Per function DIE with a declaration line, and per named type DIE: where they are declared
      /// (see `ImageDebugInfo+Declarations.swift`).
      let declarations: [Int: DWARFDeclaration]
      let types: [Int: (name: UnsafePointer<CChar>, files: DWARFFileSet)]
      /// Per function start: its `DW_TAG_subprogram`'s offset.
      let functionStarts: [UInt: Int]
      let files: DWARFUnitFiles?
      /// What ended the unit's reading early (what was read before it is kept).
      let error: DWARFError?

      init(_ reader: DWARFInfoReader, error: DWARFError?) {
        inlined = reader.inlined
        names = reader.names
        origins = reader.origins
        frameSlots = reader.frameSlots
        declarations = reader.declarations
        types = reader.types
        functionStarts = reader.functionStarts
        files = reader.unitFiles
        self.error = error
        var partialFunctions: [String: [UInt]] = [:]
        var asyncFunctions: [UInt: String] = [:]
        for (start, name) in reader.partialFunctionNames {
          let mangled = String(cString: name)
          guard let base = AsyncFunctionNames.asyncFunction(ofPartialFunction: mangled) else { continue }
          partialFunctions[base, default: []].append(start)
          asyncFunctions[start] = base
        }
        self.partialFunctions = partialFunctions
        self.asyncFunctions = asyncFunctions
      }
    }

    /// The units and which addresses each holds, read on first use.
    struct Index {
      var table: DWARFUnitTable
      var addresses: DWARFAddressMap
      /// The units whose addresses neither `.debug_aranges` nor their first entry says: a lookup by
      /// a function's address that the map does not answer reads these (each once) for it.
      var unplaced: [Int]
      /// Why the address ranges could not all be read (`.debug_aranges` or a range list cut short).
      var error: DWARFError?
    }

    let sections: DWARFSections?
    /// Keeps the bytes the names point into.
    private let source: (any DWARFSectionSource)?
    private let lazyIndex = ForkSafeMutex<Index?>(nil)
    /// Per unit index: its facts. A unit is read under this lock, so that it is read once for the
    /// process even when two threads ask at once (a unit takes milliseconds, so a fork waits at most
    /// that long).
    private let units = ForkSafeMutex<[Int: UnitFacts]>([:])
    /// Per compile unit, its file table's paths, read when first asked for.
    let unitPaths = ForkSafeMutex<[Int: [String]]>([:])
    /// How many times a unit's entries were read (a unit's first entry alone, for its address ranges,
    /// is not counted): each unit at most once.
    package var unitsRead: Int { units.withLock { $0.count } }

    /// No debug information.
    package init() {
      sections = nil
      source = nil
    }

    /// The DWARF of `source` (kept alive with the names that point into it). Nothing is read yet:
    /// the units, their addresses and each unit's entries are read when a question needs them.
    package init(_ source: some DWARFSectionSource) {
      self.source = source
      sections = DWARFSections(source)
    }

    /// The unit table and the address map (read once).
    var index: Index {
      if let known = lazyIndex.withLock({ $0 }) { return known }
      let made =
        sections.map(Self.index(of:))
        ?? Index(
          table: DWARFUnitTable(info: DWARFSections.empty.info), addresses: DWARFAddressMap([]), unplaced: [],
          error: nil)
      return lazyIndex.withLock { known in
        if let known { return known }
        known = made
        return made
      }
    }

    private static func index(of sections: DWARFSections) -> Index {
      let table = DWARFUnitTable(info: sections.info)
      var error = table.error
      var ranges: [(start: UInt, end: UInt, unit: Int)] = []
      var covered: Set<Int> = []
      if let bytes = sections.addressRanges {
        var byOffset: [Int: Int] = [:]
        for (index, header) in table.headers.enumerated() { byOffset[header.start] = index }
        do {
          (ranges, covered) = try DWARFAddressMap.addressRanges(bytes, unitsByOffset: byOffset)
        } catch let thrown {
          error = error ?? thrown
        }
      }
      var unplaced: [Int] = []
      var abbreviations: [Int: DWARFInfoReader.Abbreviation] = [:]
      for (index, header) in table.headers.enumerated() where header.isCompileUnit && !covered.contains(index)
      {
        var reader = DWARFInfoReader(sections: sections)
        _ = reader.read(header, index: index, rootOnly: true, abbreviations: &abbreviations)
        if let offset = reader.unitRanges {
          do {
            for range in try DWARFAddressMap.rangeList(
              at: offset, version: header.version, base: reader.unitLowPC ?? 0, in: sections)
            {
              ranges.append((range.start, range.end, index))
            }
          } catch let thrown {
            error = error ?? thrown
            unplaced.append(index)
          }
        } else if let low = reader.unitLowPC, let high = reader.unitHighPC {
          ranges.append((low, high.isOffset ? low &+ high.value : high.value, index))
        } else {
          unplaced.append(index)
        }
      }
      return Index(table: table, addresses: DWARFAddressMap(ranges), unplaced: unplaced, error: error)
    }

    /// The facts of unit `unit` (an index of the unit table), read on first use.
    func facts(ofUnit unit: Int) -> UnitFacts {
      let header = index.table.headers[unit]
      return units.withLock { units in
        if let known = units[unit] { return known }
        var reader = DWARFInfoReader(sections: sections ?? DWARFSections.empty)
        let error = reader.read(header, index: unit)
        let facts = UnitFacts(reader, error: error)
        units[unit] = facts
        return facts
      }
    }

    /// The number of units in `.debug_info`.
    var unitCount: Int { index.table.headers.count }

    /// The unit that holds the function starting at the virtual address `start`: the address map's
    /// answer, or else the unplaced unit that has a function starting there.
    /// - Throws: the ``DWARFError`` that kept the answer from being read: the address map or the
    ///   unit table cut short, when no unit was found.
    func unit(ofFunctionAt start: UInt) throws(DWARFError) -> Int? {
      let index = self.index
      if let unit = index.addresses.unit(containing: start) { return unit }
      for unit in index.unplaced where facts(ofUnit: unit).functionStarts[start] != nil { return unit }
      if let error = index.error { throw error }
      return nil
    }

    /// The facts of the unit holding the function at `start`; nil when none holds it or it cannot be
    /// read (a whole-image question's answer is then empty, as without debug information).
    private func facts(ofFunctionAt start: UInt) -> UnitFacts? {
      guard sections != nil, let unit = try? unit(ofFunctionAt: start) else { return nil }
      return facts(ofUnit: unit)
    }

    /// Every unit's facts (each read once): for the questions about the whole image.
    func allFacts() -> [UnitFacts] {
      guard sections != nil else { return [] }
      return (0..<unitCount).map(facts(ofUnit:))
    }

    /// The facts of the unit that holds the entry at offset `die` of `.debug_info`.
    func facts(holdingEntry die: Int) -> UnitFacts? {
      guard sections != nil, let unit = index.table.unit(holding: die) else { return nil }
      return facts(ofUnit: unit)
    }

    /// The offsets, in the async context of the function that the partial function starting at the
    /// virtual address `start` resumes, of the variables that this function keeps in its frame but
    /// that the debug information does not place in that partial function: slots whose lifetime
    /// ended before the function was suspended there. Empty when the partial function is not known
    /// or a location is not understood.
    package func deadFrameOffsets(resumingAt start: UInt) -> Set<Int> {
      guard let facts = facts(ofFunctionAt: start), let base = facts.asyncFunctions[start],
        let live = facts.frameSlots[start] ?? nil
      else { return [] }
      var dead: Set<Int> = []
      for other in facts.partialFunctions[base] ?? [] where other != start {
        dead.formUnion((facts.frameSlots[other] ?? nil) ?? [])
      }
      return dead.subtracting(live)
    }

    /// The offsets, in the async context of the function that the partial function starting at
    /// `start` resumes, of every variable any of that function's partial functions places in its
    /// frame; nil when the partial function is not known or a location is not understood.
    package func frameOffsets(ofFunctionResumingAt start: UInt) -> Set<Int>? {
      guard let facts = facts(ofFunctionAt: start), let base = facts.asyncFunctions[start] else { return nil }
      var offsets: Set<Int> = []
      for partial in facts.partialFunctions[base] ?? [] {
        guard let slots = facts.frameSlots[partial] ?? nil else { return nil }
        offsets.formUnion(slots)
      }
      return offsets
    }

    /// The start addresses of the functions with inlined code (reads every unit: for tests).
    package var functionsWithInlinedCode: [UInt] { allFacts().flatMap { Array($0.inlined.keys) } }

    /// The mangled names of the functions inlined (at any depth) into the function that starts at
    /// the virtual address `start`, in the order the DWARF lists them.
    package func inlinedFunctions(at start: UInt) -> [String] {
      // A loop, not `compactMap` with a closure: Swift 6.3.1's optimiser crashed (a SIL verification
      // error in OwnershipModelEliminator) on that closure over the class's dictionaries in `-c release`.
      var found: [String] = []
      guard let unit = facts(ofFunctionAt: start) else { return [] }
      for offset in unit.inlined[start] ?? [] {
        var die = offset
        // A reference may lead into another unit (`DW_FORM_ref_addr`): that unit is read then.
        for _ in 0..<8 {
          guard
            let holder = unit.names[die] != nil || unit.origins[die] != nil ? unit : facts(holdingEntry: die)
          else { break }
          if let name = holder.names[die] {
            found.append(String(cString: name))
            break
          }
          guard let next = holder.origins[die] else { break }
          die = next
        }
      }
      return found
    }
  }
#endif
