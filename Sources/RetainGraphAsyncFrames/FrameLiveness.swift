// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  internal import Foundation
  internal import RetainGraphImages
  internal import RetainGraphMachineCode
  internal import RetainGraphSupport

  /// Which words of a suspended async frame hold nothing, read from the machine code of the partial
  /// function that resumes it (x86_64; README.md in this folder, "Frame liveness").
  ///
  /// A word of frame F that holds an owned strong reference must be loaded (to release it or pass it
  /// on) before it is overwritten and before the frame is freed, or the compiler would leak it. So
  /// when, on every path from the resume point, the first access to a word is a store that covers it
  /// whole, or the path returns (the caller frees the frame) or traps without reading it, the word
  /// holds no owned reference: it is a stale bit pattern, not an edge. Anything the reader does not
  /// follow exactly stops that path with every word it has not seen counted live.
  package enum FrameLiveness {
    /// What one resume function's code says of its frame.
    package struct Analysis: Sendable {
      /// How the resume function receives its frame.
      package var entry: Entry
      /// The frame offsets (multiples of 8) that hold no owned reference at the resume point.
      package var dead: Set<Int>
      /// The frame offsets whose words, written before the resume point, the code loads: each frame
      /// is checked not to hold its own address or an address inside it there (the reader assumes
      /// such a loaded word does not point into the frame; when one does, nothing is ruled out).
      package var loaded: Set<Int>
      /// The size of the function's async context (its async function pointer's).
      package var contextSize: Int
      /// Figures: instructions decoded, paths followed, functions read (the resume function and
      /// those resumed through `swift_task_switch`), and the time the analysis took.
      package var instructions: Int
      package var paths: Int
      package var functions: Int
      package var seconds: Double
    }

    /// How the resume function receives its frame.
    package enum Entry: Sendable {
      /// `…TYn_` (after a suspension): the frame itself in r14.
      case ownContext
      /// `…TQn_` (after an await returned): the callee's context in r14, whose first word is the frame.
      case calleeContext
    }

    private static let cache = ForkSafeMutex<[UInt: Analysis?]>([:])

    /// The analysis of the resume function at `resume` (one per function per process), nil when it
    /// is not an async partial function of a loaded image with symbols, on other architectures, or
    /// when its async context size is not found.
    package static func analysis(resumingAt resume: UnsafeRawPointer) -> Analysis? {
      #if arch(x86_64)
        cache.withLock { cache in
          let key = UInt(bitPattern: resume)
          if let known = cache[key] { return known }
          let made = analyse(resume)
          cache[key] = .some(made)
          return made
        }
      #else
        return nil
      #endif
    }

    /// The offsets of the frame at `context`, resumed by `resume`, that hold no owned reference (see
    /// the type's summary). `innermost`: the frame is the task's resume context, resumed with itself,
    /// which only a suspension-resume function owns (an await-resume function resumed there gets a
    /// callee's context, whose first word is its frame, read as the next frame); every other frame is
    /// resumed by an await-resume function with its callee's context. Empty when nothing can be
    /// ruled out.
    package static func deadOffsets(context: UInt, resume: UnsafeRawPointer, innermost: Bool) -> Set<Int> {
      // The cached analysis first: a walk asks this for every frame of every suspended task.
      guard let analysis = analysis(resumingAt: resume),
        analysis.entry == (innermost ? .ownContext : .calleeContext), !analysis.dead.isEmpty,
        let frame = UnsafeRawPointer(bitPattern: context)
      else { return [] }
      let extent = context..<(context + UInt(analysis.contextSize))
      for offset in analysis.loaded where offset >= 0 && offset + 8 <= analysis.contextSize {
        // An offset the machine code loads from need not be a word's: read it unaligned.
        if extent.contains(frame.loadUnaligned(fromByteOffset: offset, as: UInt.self)) { return [] }
      }
      return analysis.dead
    }

    /// The frame offsets the reader finds dead in `size` bytes of machine code at `code`, read as a
    /// whole resume function of a frame of `contextSize` bytes (no symbol is needed; calls and jumps
    /// out of it reach no named function). For tests of the reader on hand-assembled code.
    package static func deadOffsets(
      ofCode code: UnsafeRawPointer, size: Int, entry: Entry, contextSize: Int, variables: Set<Int>? = nil
    ) -> Set<Int> {
      var reader = Reader(contextSize: contextSize, variables: variables)
      let start = UInt(bitPattern: code)
      reader.run(
        from: PathState(entry: entry, function: FunctionExtent(start: start, end: start + UInt(size))))
      return reader.result.dead
    }

    /// How the partial function at `resume` receives its frame, from its mangled name; nil when it is
    /// not an async partial function.
    static func entry(of resume: UnsafeRawPointer) -> Entry? {
      guard let name = ImageCatalogue.symbolName(at: resume),
        AsyncFunctionNames.asyncFunction(ofPartialFunction: name) != nil
      else { return nil }
      let withoutNumber = name.dropLast().reversed().drop { $0.isNumber }
      return withoutNumber.starts(with: "QT") ? .calleeContext : .ownContext
    }

    /// The name of the function at `address`: the symbol that starts there, or the function a PLT
    /// stub there jumps to (`jmp *slot(%rip)`, optionally after `endbr64`, `bnd`), from the image's
    /// dynamic relocations.
    static func functionName(at address: UInt) -> String? {
      guard let pointer = UnsafeRawPointer(bitPattern: address),
        let (image, base) = ImageCatalogue.image(containing: pointer)
      else { return nil }
      let functions = image.symbols.functions
      let offset = address &- UInt(bitPattern: base)
      if let extent = functions.extent(at: offset) {
        return extent.start == offset ? functions.name(at: offset) : nil
      }
      // A PLT stub is 16 bytes.
      guard let slot = MachineCode.stubSlot(at: pointer, available: 16) else { return nil }
      return image.symbols.importedFunction(atSlot: slot &- UInt(bitPattern: base))
    }

    /// The async-context offsets of every variable of the async function that the partial function
    /// at `address` belongs to, from its image's DWARF (`ImageDebugInfo.frameOffsets`); nil without
    /// debug information for it.
    static func frameOffsets(ofFunctionResumingAt address: UnsafeRawPointer) -> Set<Int>? {
      ImageCatalogue.debugInfo(at: address).flatMap { $0.0.frameOffsets(ofFunctionResumingAt: $0.1) }
    }

    #if arch(x86_64)
      private static func analyse(_ resume: UnsafeRawPointer) -> Analysis? {
        let started = DispatchTime.now().uptimeNanoseconds
        guard let entry = entry(of: resume), let name = ImageCatalogue.symbolName(at: resume),
          let function = AsyncFunctionNames.asyncFunction(ofPartialFunction: name),
          let pointer = ImageCatalogue.dataSymbol(named: function + "Tu", inImageContaining: resume),
          let extent = FunctionExtent(startingAt: resume)
        else { return nil }
        // AsyncFunctionPointer { relative function, context size u32 }.
        let contextSize = Int(pointer.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        guard contextSize >= 16, contextSize <= 1 << 20 else { return nil }
        var reader = Reader(
          contextSize: contextSize, variables: frameOffsets(ofFunctionResumingAt: resume))
        reader.run(from: PathState(entry: entry, function: extent))
        var analysis = reader.result
        analysis.entry = entry
        analysis.seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        return analysis
      }
    #endif
  }

  /// The address range of one function, from the symbol tables.
  struct FunctionExtent: Equatable {
    var start: UInt
    var end: UInt

    init?(startingAt address: UnsafeRawPointer) {
      guard let function = ImageCatalogue.function(startingAt: address), function.size < 1 << 20 else {
        return nil
      }
      start = UInt(bitPattern: address)
      end = start + function.size
    }

    init(start: UInt, end: UInt) {
      self.start = start
      self.end = end
    }

    func contains(_ address: UInt) -> Bool { address >= start && address < end }
  }
#endif
