internal import Foundation

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

/// An abstract value of a register, a stack slot or a frame word during the liveness reading.
private enum Value: Equatable {
  /// Not derived from the frame's address (a call's result, a load from memory that is not the frame
  /// header or a tracked slot, a constant).
  case opaque
  /// Derived from the frame's address in a way not followed: any use that could reach memory stops.
  case tainted
  /// The frame's address plus a constant.
  case frame(Int)
  /// The stack pointer at the function's entry plus a constant.
  case stack(Int)
  /// The callee's context an await-resume function receives: its first word is the frame.
  case calleeContext
  /// The frame's resume-parent function (its second word): jumping there with the frame in r14
  /// returns, and the caller frees the frame.
  case resumeParent
  /// An address in the code (a `lea` relative to rip).
  case code(UInt)
  /// What `swift_task_alloc` returned last on this path: a callee's context being set up (its
  /// first two words are followed).
  case newContext

  var isFrameDerived: Bool {
    switch self {
    case .frame, .tainted: true
    default: false
    }
  }
}

/// One path's state: registers, the stack slots and frame words written on it, and each frame
/// word's first access.
private struct PathState {
  var registers = [Value](repeating: .opaque, count: 16)
  var stack: [Int: Value] = [:]
  /// The stack slots written by `push` or through rsp: where outgoing stack arguments are written
  /// (spills go through rbp).
  var pushed: Set<Int> = []
  /// The frame offsets whose address the path computed (`lea`, `add` on the frame's address): in an
  /// unoptimised frame, the starts of its slots.
  var slots: Set<Int> = []
  var frame: [Int: Value] = [:]
  /// Per frame word (offset): true when its first access was a store covering it, false a read.
  var firstAccess: [Int: Bool] = [:]
  var function: FunctionExtent
  var pc: UInt
  var onPath: Set<UInt> = []
  var followed = 0
  /// The first two words written to the last `swift_task_alloc` result: a callee's context's parent
  /// and resume function.
  var newContextParent: Value?
  var newContextResume: UInt?
  /// Per function entered on this path: the frame words' values at its entry (a loop through a
  /// suspension comes back to a function entered before).
  var entries: [UInt: [Int: Value]] = [:]

  init(entry: FrameLiveness.Entry, function: FunctionExtent) {
    self.function = function
    pc = function.start
    enter(entry)
  }

  /// The registers a partial function starts with: its context in r14, the stack pointer.
  mutating func enter(_ entry: FrameLiveness.Entry) {
    registers = [Value](repeating: .opaque, count: 16)
    registers[MachineCode.Register.r14.rawValue] = entry == .ownContext ? .frame(0) : .calleeContext
    registers[MachineCode.Register.rsp.rawValue] = .stack(0)
    stack = [:]
    pushed = []
    onPath = []
  }

  subscript(_ register: MachineCode.Register) -> Value {
    get { registers[register.rawValue] }
    set { registers[register.rawValue] = newValue }
  }
}

/// How a path ended.
private enum PathEnd {
  /// Stopped, or left for code not followed: the words it stored first are dead, the others live.
  case open
  /// Returned to the frame's caller (which frees it) or trapped: every word it did not read first
  /// is dead.
  case freed
}

/// Where a memory operand points.
private enum Location {
  case frame(Int)
  case stack(Int)
  case calleeContext(Int)
  case newContext(Int)
  /// Memory that is not the frame (globals, thread-local storage, objects, other contexts).
  case elsewhere
  /// Possibly the frame at an offset not known: a read there stops the path.
  case unknown
}

private struct Reader {
  let contextSize: Int
  var dead: Set<Int>?
  var loaded: Set<Int> = []
  var instructions = 0
  var paths = 0
  var functions: Set<UInt> = []
  static let maximumInstructions = 200_000
  static let maximumPaths = 4_096
  static let maximumFollowed = 8
  /// Stack arguments a call may read above the stack pointer (written by `push` or through rsp):
  /// 4 words.
  static let stackArgumentBytes = 32

  /// The frame offsets of the function's variables, sorted, from the debug information of an
  /// unoptimised build (nil otherwise): each variable's slot ends where the next one starts.
  let variables: [Int]?

  init(contextSize: Int, variables: Set<Int>?) {
    self.contextSize = contextSize
    self.variables = variables?.sorted()
  }

  var result: FrameLiveness.Analysis {
    FrameLiveness.Analysis(
      entry: .ownContext, dead: (dead ?? []).filter { $0 >= 16 && $0 + 8 <= contextSize }, loaded: loaded,
      contextSize: contextSize,
      instructions: instructions, paths: paths, functions: functions.count, seconds: 0)
  }

  /// Follows every path from `start` (depth first, with an explicit stack of pending paths).
  mutating func run(from start: PathState) {
    var pending = [start]
    while var state = pending.popLast() {
      paths += 1
      let end = follow(&state, pending: &pending)
      finish(state, end)
    }
  }

  /// Records one path's end: the dead words are intersected over every path.
  mutating func finish(_ state: PathState, _ end: PathEnd) {
    var words: Set<Int>
    switch end {
    case .open:
      words = Set(state.firstAccess.compactMap { $0.value ? $0.key : nil })
    case .freed:
      let read = Set(state.firstAccess.compactMap { $0.value ? nil : $0.key })
      words = Set(stride(from: 0, to: contextSize, by: 8)).subtracting(read)
    }
    dead = dead.map { $0.intersection(words) } ?? words
  }

  /// Reads one path until it ends; conditional branches add pending paths.
  mutating func follow(_ state: inout PathState, pending: inout [PathState]) -> PathEnd {
    functions.insert(state.function.start)
    while true {
      guard state.function.contains(state.pc), instructions < Self.maximumInstructions,
        state.onPath.insert(state.pc).inserted,
        let pointer = UnsafeRawPointer(bitPattern: state.pc),
        let instruction = MachineCode.decode(pointer, available: Int(state.function.end - state.pc))
      else { return .open }
      instructions += 1
      let next = state.pc + UInt(instruction.length)
      switch step(instruction, &state, next: next) {
      case .continue:
        state.pc = next
      case .end(let end):
        return end
      case .branch(let target):
        if pending.count + paths < Self.maximumPaths && state.function.contains(target) {
          var taken = state
          taken.pc = target
          pending.append(taken)
        } else {
          // A conditional tail call, or too many paths: the branch taken counts as stopped here.
          finishOpenBranch(state)
        }
        state.pc = next
      case .jump(let target):
        state.pc = target
      case .resume(let function, let entry):
        guard state.followed < Self.maximumFollowed else { return .open }
        state.followed += 1
        // The frame's words that hold what decides where later code goes and which words it reaches
        // (the frame's address, code addresses, the resume parent); other contexts' addresses read
        // as any other value would.
        let frame = state.frame.filter { ![.opaque, .newContext, .calleeContext].contains($0.value) }
        if let earlier = state.entries[function.start] {
          // Back at a function entered before with the same frame: what follows was read from
          // there, so this turn of the loop adds nothing.
          return earlier == frame ? .freed : .open
        }
        state.entries[function.start] = frame
        state.function = function
        state.pc = function.start
        state.enter(entry)
        functions.insert(function.start)
      }
    }
  }

  /// A branch not followed: that path counts as stopped here.
  mutating func finishOpenBranch(_ state: PathState) {
    paths += 1
    finish(state, .open)
  }

  enum Step {
    case `continue`
    case end(PathEnd)
    case branch(UInt)
    case jump(UInt)
    case resume(FunctionExtent, FrameLiveness.Entry)
  }

  /// What one instruction does to the state.
  mutating func step(_ instruction: MachineCode.Instruction, _ state: inout PathState, next: UInt) -> Step {
    let operands = instruction.operands
    switch instruction.operation {
    case .nop:
      return .continue
    case .trap:
      return .end(.freed)
    case .move(let extending):
      guard operands.count >= 2, let value = read(operands[1], &state, next: next) else { return .end(.open) }
      let written: Value = extending ? (value.isFrameDerived ? .tainted : .opaque) : value
      if case .vector = operands[0], value.isFrameDerived { return .end(.open) }
      return write(operands[0], written, &state, next: next) ? .continue : .end(.open)
    case .loadAddress:
      guard operands.count == 2, case .register(let register, let width, _) = operands[0],
        case .memory(let memory, _) = operands[1]
      else { return .end(.open) }
      let value: Value
      switch location(memory, state, next: next) {
      case .frame(let offset):
        value = .frame(offset)
        state.slots.insert(offset)
      case .stack(let offset): value = .stack(offset)
      case .calleeContext(let offset): value = offset == 0 ? .calleeContext : .opaque
      case .newContext(let offset): value = offset == 0 ? .newContext : .opaque
      case .elsewhere:
        value =
          memory.ripRelative ? .code(UInt(bitPattern: Int(bitPattern: next) &+ memory.displacement)) : .opaque
      case .unknown: value = .tainted
      }
      setRegister(register, width: width, value, &state)
      return .continue
    case .add, .subtract:
      guard operands.count == 2 else { return .end(.open) }
      if case .register(let register, 8, false) = operands[0], case .immediate(let constant) = operands[1] {
        let delta = instruction.operation == .add ? constant : -constant
        switch state[register] {
        case .frame(let offset):
          state[register] = .frame(offset + delta)
          state.slots.insert(offset + delta)
        case .stack(let offset): state[register] = .stack(offset + delta)
        case .opaque, .code, .resumeParent, .calleeContext, .newContext: state[register] = .opaque
        case .tainted: break
        }
        return .continue
      }
      return readModifyWrite(operands, &state, next: next)
    case .readModifyWrite, .unary:
      // xor r, r: zero.
      if instruction.operation == .readModifyWrite, operands.count == 2, operands[0] == operands[1],
        case .register(let register, let width, false) = operands[0], width >= 4
      {
        state[register] = .opaque
        return .continue
      }
      return readModifyWrite(operands, &state, next: next)
    case .compare:
      for operand in operands where read(operand, &state, next: next) == nil { return .end(.open) }
      return .continue
    case .writeOnly:
      guard let operand = operands.first else { return .end(.open) }
      return write(operand, .opaque, &state, next: next) ? .continue : .end(.open)
    case .wideArithmetic:
      var derived = state[.rax].isFrameDerived || state[.rdx].isFrameDerived
      for operand in operands {
        guard let value = read(operand, &state, next: next) else { return .end(.open) }
        derived = derived || value.isFrameDerived
      }
      state[.rax] = derived ? .tainted : .opaque
      state[.rdx] = derived ? .tainted : .opaque
      return .continue
    case .exchange:
      guard operands.count == 2, let first = read(operands[0], &state, next: next),
        let second = read(operands[1], &state, next: next),
        write(operands[0], second, &state, next: next), write(operands[1], first, &state, next: next)
      else { return .end(.open) }
      return .continue
    case .compareExchange:
      guard operands.count == 2, let old = read(operands[0], &state, next: next),
        let new = read(operands[1], &state, next: next)
      else { return .end(.open) }
      let derived = old.isFrameDerived || new.isFrameDerived || state[.rax].isFrameDerived
      guard write(operands[0], derived ? .tainted : .opaque, &state, next: next) else { return .end(.open) }
      state[.rax] = derived ? .tainted : .opaque
      return .continue
    case .push:
      guard let operand = operands.first, let value = read(operand, &state, next: next),
        case .stack(let top) = state[.rsp]
      else { return .end(.open) }
      state[.rsp] = .stack(top - 8)
      storeStack(top - 8, width: 8, value, &state)
      state.pushed.insert(top - 8)
      return .continue
    case .pop:
      guard let operand = operands.first, case .stack(let top) = state[.rsp] else { return .end(.open) }
      let value = state.stack[top] ?? .opaque
      state[.rsp] = .stack(top + 8)
      return write(operand, value, &state, next: next) ? .continue : .end(.open)
    case .leave:
      guard case .stack(let base) = state[.rbp] else { return .end(.open) }
      state[.rbp] = state.stack[base] ?? .opaque
      state[.rsp] = .stack(base + 8)
      return .continue
    case .call(let target):
      let callee = UInt(bitPattern: Int(bitPattern: next) &+ target)
      return call(name: FrameLiveness.functionName(at: callee), &state) ? .continue : .end(.open)
    case .indirectCall:
      guard let operand = operands.first, let target = read(operand, &state, next: next),
        !target.isFrameDerived
      else { return .end(.open) }
      return call(name: nil, &state) ? .continue : .end(.open)
    case .conditionalJump(let target):
      return .branch(UInt(bitPattern: Int(bitPattern: next) &+ target))
    case .jump(let target):
      let destination = UInt(bitPattern: Int(bitPattern: next) &+ target)
      if state.function.contains(destination) { return .jump(destination) }
      return tailCall(destination, &state)
    case .indirectJump:
      guard let operand = operands.first, let target = read(operand, &state, next: next) else {
        return .end(.open)
      }
      // The return: the frame's resume parent called with the frame itself.
      if target == .resumeParent, state[.r14] == .frame(0) { return .end(.freed) }
      // An async call through a pointer (an async function pointer's function).
      if state[.r14] == .newContext, !target.isFrameDerived { return tailCall(0, &state) }
      return .end(.open)
    case .ret:
      return .end(.open)
    }
  }

  /// A jump out of the function, followed only (with the frame's words as the path left them)
  /// into a partial function of the same async function: one taking the frame (r14) directly or
  /// through `swift_task_switch` (resumed with the frame, named by a `lea` in rdi), or the
  /// await-resume function of a callee's context set up on the path (r14 the last
  /// `swift_task_alloc` result, its parent the frame, its resume function written to its second
  /// word): the callee may read what it is passed, as a call may, then resumes there. Anything
  /// else ends the path.
  mutating func tailCall(_ destination: UInt, _ state: inout PathState) -> Step {
    let name = FrameLiveness.functionName(at: destination)
    let current = SymbolNames.symbolName(
      at: UnsafeRawPointer(bitPattern: state.function.start).unsafelyUnwrapped
    )
    .flatMap(ImageDebugInfo.asyncFunction(ofPartialFunction:))
    func sameFunction(_ address: UInt, _ entry: FrameLiveness.Entry) -> FunctionExtent? {
      guard let pointer = UnsafeRawPointer(bitPattern: address), FrameLiveness.entry(of: pointer) == entry,
        let name = SymbolNames.symbolName(at: pointer), current != nil,
        ImageDebugInfo.asyncFunction(ofPartialFunction: name) == current
      else { return nil }
      return FunctionExtent(startingAt: pointer)
    }
    if state[.r14] == .frame(0) {
      if let extent = sameFunction(destination, .ownContext) { return .resume(extent, .ownContext) }
      if name == "swift_task_switch", case .code(let resume) = state[.rdi],
        let extent = sameFunction(resume, .ownContext)
      {
        return .resume(extent, .ownContext)
      }
      return .end(.open)
    }
    guard state[.r14] == .newContext, state.newContextParent == .frame(0),
      let resume = state.newContextResume,
      let extent = sameFunction(resume, .calleeContext), call(name: nil, &state)
    else { return .end(.open) }
    return .resume(extent, .calleeContext)
  }

  /// Runtime functions whose arguments are known: each argument register, with how many bytes the
  /// function may read or write where it points when it points into the frame (0: not a pointer the
  /// frame's address may be passed as).
  static let knownArguments: [String: [(MachineCode.Register, Int)]] = [
    "swift_task_alloc": [(.rdi, 0)], "swift_task_dealloc": [(.rdi, 0)],
    "swift_retain": [(.rdi, 0)], "swift_release": [(.rdi, 0)], "swift_retain_n": [(.rdi, 0), (.rsi, 0)],
    "swift_release_n": [(.rdi, 0), (.rsi, 0)], "swift_bridgeObjectRetain": [(.rdi, 0)],
    "swift_bridgeObjectRelease": [(.rdi, 0)], "swift_unknownObjectRetain": [(.rdi, 0)],
    "swift_unknownObjectRelease": [(.rdi, 0)], "swift_allocObject": [(.rdi, 0), (.rsi, 0), (.rdx, 0)],
    // (address, buffer, flags, pc): the buffer is an access record of three words.
    "swift_beginAccess": [(.rdi, 0), (.rsi, 24), (.rdx, 0), (.rcx, 0)], "swift_endAccess": [(.rdi, 24)],
    "swift_weakLoadStrong": [(.rdi, 8)], "swift_weakTakeStrong": [(.rdi, 8)],
    "swift_weakDestroy": [(.rdi, 8)],
    "swift_weakInit": [(.rdi, 8), (.rsi, 0)], "swift_weakAssign": [(.rdi, 8), (.rsi, 0)],
    "swift_weakCopyInit": [(.rdi, 8), (.rsi, 8)], "swift_weakTakeInit": [(.rdi, 8), (.rsi, 8)],
    "swift_weakCopyAssign": [(.rdi, 8), (.rsi, 8)], "swift_weakTakeAssign": [(.rdi, 8), (.rsi, 8)],
  ]

  /// A call: the registers it may read as arguments must not hold the frame's address (a known
  /// runtime function's pointer arguments into the frame count as reads of what they point to), nor
  /// may the stack arguments; afterwards the caller-saved registers hold values not derived from
  /// the frame. Swift's x86_64 convention passes arguments in rdi, rsi, rdx, rcx, r8, r9, the
  /// indirect result in rax, self in r13 and the error in r12.
  mutating func call(name: String?, _ state: inout PathState) -> Bool {
    if let name, let known = Self.knownArguments[name] {
      for (register, bytes) in known {
        guard state[register].isFrameDerived else { continue }
        guard bytes > 0, case .frame(let offset) = state[register] else { return false }
        markRead(offset, width: bytes, &state)
      }
    } else {
      let arguments: [MachineCode.Register] = [.rdi, .rsi, .rdx, .rcx, .r8, .r9, .rax, .r12, .r13]
      for register in arguments where state[register].isFrameDerived {
        // A pointer to F + k lets the callee reach what lies there, never what lies below k: the
        // words from k to the end of the frame count as read. An unoptimised frame gives every
        // variable and temporary a slot of its own, and its code computes each slot's address
        // (measured: at the start of each partial function), so there the callee reaches only up to
        // the next slot whose address the path computed or that the debug information names for a
        // variable. Anything else (an address derived from F in a way not followed) stops.
        guard case .frame(let offset) = state[register], offset >= 0 else { return false }
        var end = contextSize
        if let variables {
          end = min(
            variables.first { $0 > offset } ?? contextSize,
            state.slots.filter { $0 > offset }.min() ?? contextSize)
        }
        markRead(offset, width: end - offset, &state)
        var word = offset
        while word < end {
          // What the callee writes there is not the frame's address (a pointer to a local cannot
          // escape in Swift).
          if state.frame[word] != nil { state.frame[word] = .opaque }
          word += 8
        }
      }
      if case .stack(let top) = state[.rsp],
        state.pushed.contains(where: {
          $0 >= top && $0 < top + Self.stackArgumentBytes && state.stack[$0]?.isFrameDerived == true
        })
      {
        return false
      }
    }
    for register in [MachineCode.Register.rax, .rcx, .rdx, .rsi, .rdi, .r8, .r9, .r10, .r11] {
      state[register] = .opaque
    }
    if name == "swift_task_alloc" {
      state[.rax] = .newContext
      state.newContextParent = nil
      state.newContextResume = nil
    }
    return true
  }

  /// Marks the frame words that `width` bytes at `offset` overlap as read (live) when not yet seen.
  mutating func markRead(_ offset: Int, width: Int, _ state: inout PathState) {
    guard width > 0 else { return }
    var word = Self.floor(offset)
    while word < offset + width {
      if word >= 0, state.firstAccess[word] == nil { state.firstAccess[word] = false }
      word += 8
    }
  }

  static func floor(_ offset: Int) -> Int { offset >= 0 ? offset / 8 * 8 : -((-offset + 7) / 8 * 8) }

  /// A read and a write of the first operand, the others read.
  mutating func readModifyWrite(_ operands: [MachineCode.Operand], _ state: inout PathState, next: UInt)
    -> Step
  {
    var derived = false
    for operand in operands {
      guard let value = read(operand, &state, next: next) else { return .end(.open) }
      derived = derived || value.isFrameDerived
    }
    guard let destination = operands.first else { return .end(.open) }
    if case .vector = destination, derived { return .end(.open) }
    return write(destination, derived ? .tainted : .opaque, &state, next: next) ? .continue : .end(.open)
  }

  /// Where a memory operand points in this state.
  func location(_ memory: MachineCode.Memory, _ state: PathState, next: UInt) -> Location {
    if memory.ripRelative || memory.segmented {
      return memory.index.map { state[$0].isFrameDerived } == true ? .unknown : .elsewhere
    }
    let index = memory.index.map { state[$0] }
    guard let base = memory.base else {
      return index?.isFrameDerived == true ? .unknown : .elsewhere
    }
    if index?.isFrameDerived == true { return .unknown }
    switch state[base] {
    case .frame(let offset):
      return index == nil ? .frame(offset + memory.displacement) : .unknown
    case .stack(let offset):
      return index == nil ? .stack(offset + memory.displacement) : .unknown
    case .calleeContext:
      return index == nil ? .calleeContext(memory.displacement) : .elsewhere
    case .newContext:
      return index == nil ? .newContext(memory.displacement) : .elsewhere
    case .tainted:
      return .unknown
    case .opaque, .code, .resumeParent:
      return .elsewhere
    }
  }

  /// The value an operand holds, recording a frame read; nil when the path must stop.
  mutating func read(_ operand: MachineCode.Operand, _ state: inout PathState, next: UInt) -> Value? {
    switch operand {
    case .immediate, .vector:
      return .opaque
    case .register(let register, let width, _):
      let value = state[register]
      return width == 8 ? value : value.isFrameDerived ? .tainted : .opaque
    case .memory(let memory, let width):
      switch location(memory, state, next: next) {
      case .frame(let offset):
        noteSlot(memory, offset: offset, width: width, &state)
        markRead(offset, width: width, &state)
        // A word written on this path holds what was written (`.opaque` after a partial write).
        if let known = state.frame[Self.floor(offset)] {
          return width == 8 && offset % 8 == 0 ? known : known.isFrameDerived ? .tainted : .opaque
        }
        guard offset >= 0 else { return .opaque }
        loaded.insert(Self.floor(offset))
        return offset == 8 && width == 8 ? .resumeParent : .opaque
      case .stack(let offset):
        if width == 8, let known = state.stack[offset] { return known }
        let overlapping = state.stack.contains {
          $0.key < offset + width && $0.key + 8 > offset && $0.value.isFrameDerived
        }
        return overlapping ? .tainted : .opaque
      case .calleeContext(let offset):
        return offset == 0 && width == 8 ? .frame(0) : .opaque
      case .newContext(let offset):
        if offset == 0 && width == 8, let parent = state.newContextParent { return parent }
        return .opaque
      case .elsewhere:
        return .opaque
      case .unknown:
        return nil
      }
    }
  }

  /// Writes `value` to an operand, recording a frame store; false when the path must stop (the
  /// frame's address escapes, or the write's place is not known).
  mutating func write(_ operand: MachineCode.Operand, _ value: Value, _ state: inout PathState, next: UInt)
    -> Bool
  {
    switch operand {
    case .immediate:
      return false
    case .vector:
      return !value.isFrameDerived
    case .register(let register, let width, _):
      setRegister(register, width: width, value, &state)
      return true
    case .memory(let memory, let width):
      switch location(memory, state, next: next) {
      case .frame(let offset):
        noteSlot(memory, offset: offset, width: width, &state)
        // Whole words covered by the store are dead when first seen here.
        var word = Self.floor(offset)
        while word < offset + width {
          if word >= 0, state.firstAccess[word] == nil, word >= offset, word + 8 <= offset + width {
            state.firstAccess[word] = true
          }
          state.frame[word] = .opaque
          word += 8
        }
        if width == 8, offset % 8 == 0 {
          state.frame[offset] = value
        } else if value.isFrameDerived {
          return false
        }
        return true
      case .stack(let offset):
        if width != 8 && value.isFrameDerived { return false }
        storeStack(offset, width: width, value, &state)
        if memory.base == .rsp { state.pushed.insert(offset) }
        return true
      case .newContext(let offset):
        if offset == 0 && width == 8 {
          state.newContextParent = value
          return true
        }
        if offset == 8 && width == 8, case .code(let resume) = value {
          state.newContextResume = resume
          return true
        }
        if offset < 16 { state.newContextParent = nil }
        return !value.isFrameDerived
      case .calleeContext, .elsewhere, .unknown:
        // The frame's address stored where it is not followed: it escapes.
        if value.isFrameDerived { return false }
        if case .unknown = location(memory, state, next: next) {
          // Possibly a frame word: what the reader knows of the frame's words is forgotten.
          for key in state.frame.keys { state.frame[key] = .tainted }
        }
        return true
      }
    }
  }

  /// A word accessed whole through the frame's address or the address of its fields (context +
  /// 16, after the parent and resume-parent words) is a field of the frame: a slot start.
  func noteSlot(_ memory: MachineCode.Memory, offset: Int, width: Int, _ state: inout PathState) {
    guard width == 8, offset % 8 == 0, let base = memory.base else { return }
    if state[base] == .frame(0) || state[base] == .frame(16) { state.slots.insert(offset) }
  }

  func storeStack(_ offset: Int, width: Int, _ value: Value, _ state: inout PathState) {
    for key in state.stack.keys where key < offset + width && key + 8 > offset {
      state.stack[key] = nil
      state.pushed.remove(key)
    }
    if width == 8 { state.stack[offset] = value }
  }

  func setRegister(_ register: MachineCode.Register, width: Int, _ value: Value, _ state: inout PathState) {
    switch width {
    case 8: state[register] = value
    case 4: state[register] = value.isFrameDerived ? .tainted : .opaque
    default: state[register] = value.isFrameDerived || state[register].isFrameDerived ? .tainted : .opaque
    }
  }

}
