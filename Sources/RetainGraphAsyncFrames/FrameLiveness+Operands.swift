// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  internal import RetainGraphMachineCode

  // The liveness reader's operands: what a call may read, and each read and write of a register,
  // a stack slot or a frame word.
  extension FrameLiveness.Reader {
    // The reader's state types, named here as in the reader's own declaration.
    typealias PathState = FrameLiveness.PathState
    typealias PathEnd = FrameLiveness.PathEnd
    typealias Location = FrameLiveness.Location
    typealias Value = FrameLiveness.Value

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
#endif
