// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  internal import RetainGraphImages
  internal import RetainGraphMachineCode

  extension FrameLiveness {
    /// Follows every path from a resume point through the partial functions' machine code, and
    /// records each frame word's first access (its control flow: paths, branches, calls, tail calls).
    struct Reader {
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
      mutating func step(_ instruction: MachineCode.Instruction, _ state: inout PathState, next: UInt) -> Step
      {
        let operands = instruction.operands
        switch instruction.operation {
        case .nop:
          return .continue
        case .trap:
          return .end(.freed)
        case .move(let extending):
          guard operands.count >= 2, let value = read(operands[1], &state, next: next) else {
            return .end(.open)
          }
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
              memory.ripRelative
              ? .code(UInt(bitPattern: Int(bitPattern: next) &+ memory.displacement)) : .opaque
          case .unknown: value = .tainted
          }
          setRegister(register, width: width, value, &state)
          return .continue
        case .add, .subtract:
          guard operands.count == 2 else { return .end(.open) }
          if case .register(let register, 8, false) = operands[0], case .immediate(let constant) = operands[1]
          {
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
          guard write(operands[0], derived ? .tainted : .opaque, &state, next: next) else {
            return .end(.open)
          }
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
        let current = ImageCatalogue.symbolName(
          at: UnsafeRawPointer(bitPattern: state.function.start).unsafelyUnwrapped
        )
        .flatMap(AsyncFunctionNames.asyncFunction(ofPartialFunction:))
        func sameFunction(_ address: UInt, _ entry: FrameLiveness.Entry) -> FunctionExtent? {
          guard let pointer = UnsafeRawPointer(bitPattern: address),
            FrameLiveness.entry(of: pointer) == entry,
            let name = ImageCatalogue.symbolName(at: pointer), current != nil,
            AsyncFunctionNames.asyncFunction(ofPartialFunction: name) == current
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
    }
  }
#endif
