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
  /// Read once per image, on first use. Anything not understood (64-bit DWARF, an unknown form, a
  /// missing section) gives no names: a method reference is then shown as a closure, as before.
  package final class ImageDebugInfo: @unchecked Sendable {
    /// Per function start (virtual address): the DIE offsets of the functions inlined into it.
    private let inlined: [UInt: [Int]]
    /// Per DIE offset: its linkage name (a C string in the source's bytes).
    let names: [Int: UnsafePointer<CChar>]
    /// Per DIE offset without a linkage name: the DIE it refers to (abstract origin or specification).
    private let origins: [Int: Int]
    /// Per async partial function (`…TQn_`, `…TYn_`) start: the async-context offsets its variables
    /// name, or nil when a variable's location is not one this reader understands.
    private let frameSlots: [UInt: [Int]?]
    /// Per async function (its mangled name without the partial-function suffix): the starts of its
    /// partial functions.
    private var partialFunctions: [String: [UInt]] = [:]
    /// Per partial function start: its async function's name.
    private var asyncFunctions: [UInt: String] = [:]
    /// Per function DIE with a declaration line, and per named type DIE: where they are declared
    /// (see `ImageDebugInfo+Declarations.swift`).
    let declarations: [Int: DWARFDeclaration]
    let types: [Int: (name: UnsafePointer<CChar>, files: DWARFFileSet)]
    let units: [DWARFUnitFiles]
    let sections: DWARFSections?
    /// Per compile unit, its file table's paths, read when first asked for.
    let unitPaths = ForkSafeMutex<[Int: [String]]>([:])
    /// Keeps the bytes the names point into.
    private let source: (any DWARFSectionSource)?

    /// No debug information.
    package init() {
      inlined = [:]
      names = [:]
      origins = [:]
      frameSlots = [:]
      declarations = [:]
      types = [:]
      units = []
      sections = nil
      source = nil
    }

    /// Reads the DWARF of `source` (kept alive with the names that point into it).
    package init(_ source: some DWARFSectionSource) {
      self.source = source
      guard let sections = DWARFSections(source) else {
        inlined = [:]
        names = [:]
        origins = [:]
        frameSlots = [:]
        declarations = [:]
        types = [:]
        units = []
        self.sections = nil
        return
      }
      var reader = DWARFInfoReader(sections: sections)
      reader.read()
      self.sections = sections
      declarations = reader.declarations
      types = reader.types
      units = reader.units
      inlined = reader.inlined
      names = reader.names
      origins = reader.origins
      frameSlots = reader.frameSlots
      for (start, name) in reader.partialFunctionNames {
        let mangled = String(cString: name)
        guard let base = AsyncFunctionNames.asyncFunction(ofPartialFunction: mangled) else { continue }
        partialFunctions[base, default: []].append(start)
        asyncFunctions[start] = base
      }
    }

    /// The offsets, in the async context of the function that the partial function starting at the
    /// virtual address `start` resumes, of the variables that this function keeps in its frame but
    /// that the debug information does not place in that partial function: slots whose lifetime
    /// ended before the function was suspended there. Empty when the partial function is not known
    /// or a location is not understood.
    package func deadFrameOffsets(resumingAt start: UInt) -> Set<Int> {
      guard let base = asyncFunctions[start], let live = frameSlots[start] ?? nil else { return [] }
      var dead: Set<Int> = []
      for other in partialFunctions[base] ?? [] where other != start {
        dead.formUnion((frameSlots[other] ?? nil) ?? [])
      }
      return dead.subtracting(live)
    }

    /// The offsets, in the async context of the function that the partial function starting at
    /// `start` resumes, of every variable any of that function's partial functions places in its
    /// frame; nil when the partial function is not known or a location is not understood.
    package func frameOffsets(ofFunctionResumingAt start: UInt) -> Set<Int>? {
      guard let base = asyncFunctions[start] else { return nil }
      var offsets: Set<Int> = []
      for partial in partialFunctions[base] ?? [] {
        guard let slots = frameSlots[partial] ?? nil else { return nil }
        offsets.formUnion(slots)
      }
      return offsets
    }

    /// The start addresses of the functions with inlined code.
    package var functionsWithInlinedCode: [UInt] { Array(inlined.keys) }

    /// The mangled names of the functions inlined (at any depth) into the function that starts at
    /// the virtual address `start`, in the order the DWARF lists them.
    package func inlinedFunctions(at start: UInt) -> [String] {
      // A loop, not `compactMap` with a closure: Swift 6.3.1's optimiser crashed (a SIL verification
      // error in OwnershipModelEliminator) on that closure over the class's dictionaries in `-c release`.
      var found: [String] = []
      for offset in inlined[start] ?? [] {
        var die = offset
        for _ in 0..<8 {
          if let name = names[die] {
            found.append(String(cString: name))
            break
          }
          guard let next = origins[die] else { break }
          die = next
        }
      }
      return found
    }
  }
#endif
