internal import Foundation
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
enum FrameLiveness {
  /// What one resume function's code says of its frame.
  struct Analysis: Sendable {
    /// How the resume function receives its frame.
    var entry: Entry
    /// The frame offsets (multiples of 8) that hold no owned reference at the resume point.
    var dead: Set<Int>
    /// The frame offsets whose words, written before the resume point, the code loads: each frame
    /// is checked not to hold its own address or an address inside it there (the reader assumes
    /// such a loaded word does not point into the frame; when one does, nothing is ruled out).
    var loaded: Set<Int>
    /// The size of the function's async context (its async function pointer's).
    var contextSize: Int
    /// Figures: instructions decoded, paths followed, functions read (the resume function and
    /// those resumed through `swift_task_switch`), and the time the analysis took.
    var instructions: Int
    var paths: Int
    var functions: Int
    var seconds: Double
  }

  /// How the resume function receives its frame.
  enum Entry: Sendable {
    /// `…TYn_` (after a suspension): the frame itself in r14.
    case ownContext
    /// `…TQn_` (after an await returned): the callee's context in r14, whose first word is the frame.
    case calleeContext
  }

  private static let cache = ForkSafeMutex<[UInt: Analysis?]>([:])

  /// The analysis of the resume function at `resume` (one per function per process), nil when it
  /// is not an async partial function of a loaded image with symbols, on other architectures, or
  /// when its async context size is not found.
  static func analysis(resumingAt resume: UnsafeRawPointer) -> Analysis? {
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
  static func deadOffsets(context: UInt, resume: UnsafeRawPointer, innermost: Bool) -> Set<Int> {
    // The cached analysis first: a walk asks this for every frame of every suspended task.
    guard let analysis = analysis(resumingAt: resume),
      analysis.entry == (innermost ? .ownContext : .calleeContext), !analysis.dead.isEmpty,
      let frame = UnsafeRawPointer(bitPattern: context)
    else { return [] }
    let extent = context..<(context + UInt(analysis.contextSize))
    for offset in analysis.loaded where offset >= 0 && offset + 8 <= analysis.contextSize {
      if extent.contains(frame.load(fromByteOffset: offset, as: UInt.self)) { return [] }
    }
    return analysis.dead
  }

  /// The frame offsets the reader finds dead in `size` bytes of machine code at `code`, read as a
  /// whole resume function of a frame of `contextSize` bytes (no symbol is needed; calls and jumps
  /// out of it reach no named function). For tests of the reader on hand-assembled code.
  static func deadOffsets(
    ofCode code: UnsafeRawPointer, size: Int, entry: Entry, contextSize: Int, variables: Set<Int>? = nil
  ) -> Set<Int> {
    var reader = Reader(contextSize: contextSize, variables: variables)
    let start = UInt(bitPattern: code)
    reader.run(from: PathState(entry: entry, function: FunctionExtent(start: start, end: start + UInt(size))))
    return reader.result.dead
  }

  /// How the partial function at `resume` receives its frame, from its mangled name; nil when it is
  /// not an async partial function.
  static func entry(of resume: UnsafeRawPointer) -> Entry? {
    guard let name = SymbolNames.symbolName(at: resume),
      ImageDebugInfo.asyncFunction(ofPartialFunction: name) != nil
    else { return nil }
    let withoutNumber = name.dropLast().reversed().drop { $0.isNumber }
    return withoutNumber.starts(with: "QT") ? .calleeContext : .ownContext
  }

  /// The name of the function at `address`: the symbol that starts there, or the function a PLT
  /// stub there jumps to (`jmp *slot(%rip)`, optionally after `endbr64`, `bnd`), from the image's
  /// dynamic relocations.
  static func functionName(at address: UInt) -> String? {
    guard let pointer = UnsafeRawPointer(bitPattern: address),
      let (image, base) = SymbolNames.image(containing: pointer)
    else { return nil }
    let offset = address &- UInt(bitPattern: base)
    if let extent = image.extent(at: offset) {
      return extent.start == offset ? image.name(at: offset) : nil
    }
    var position = 0
    func byte(_ at: Int) -> UInt8 { pointer.load(fromByteOffset: at, as: UInt8.self) }
    if byte(0) == 0xF3 && byte(1) == 0x0F && byte(2) == 0x1E && byte(3) == 0xFA { position = 4 }
    if byte(position) == 0xF2 { position += 1 }
    guard byte(position) == 0xFF, byte(position + 1) == 0x25 else { return nil }
    let displacement = Int(pointer.loadUnaligned(fromByteOffset: position + 2, as: Int32.self))
    let slot = UInt(bitPattern: Int(bitPattern: address) &+ position &+ 6 &+ displacement)
    return image.importedFunction(atSlot: slot &- UInt(bitPattern: base))
  }

  #if arch(x86_64)
    private static func analyse(_ resume: UnsafeRawPointer) -> Analysis? {
      let started = DispatchTime.now().uptimeNanoseconds
      guard let entry = entry(of: resume), let name = SymbolNames.symbolName(at: resume),
        let function = ImageDebugInfo.asyncFunction(ofPartialFunction: name),
        let pointer = SymbolNames.dataSymbol(named: function + "Tu", inImageContaining: resume),
        let extent = FunctionExtent(startingAt: resume)
      else { return nil }
      // AsyncFunctionPointer { relative function, context size u32 }.
      let contextSize = Int(pointer.load(fromByteOffset: 4, as: UInt32.self))
      guard contextSize >= 16, contextSize <= 1 << 20 else { return nil }
      var reader = Reader(
        contextSize: contextSize, variables: SymbolNames.frameOffsets(ofFunctionResumingAt: resume))
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
    guard let (image, base) = SymbolNames.image(containing: address) else { return nil }
    let offset = UInt(bitPattern: address) &- UInt(bitPattern: base)
    guard let extent = image.extent(at: offset), extent.start == offset, extent.size < 1 << 20 else {
      return nil
    }
    start = UInt(bitPattern: address)
    end = start + extent.size
  }

  init(start: UInt, end: UInt) {
    self.start = start
    self.end = end
  }

  func contains(_ address: UInt) -> Bool { address >= start && address < end }
}
