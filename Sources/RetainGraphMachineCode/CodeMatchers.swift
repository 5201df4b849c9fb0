/// Shapes of machine code the core looks for, each read through the decoder (never byte by byte):
/// the direct calls and jumps of a function, a body that is only a jump, a merged body's caller, a
/// PLT stub. x86_64's decoder; every matcher gives nothing on other architectures.
extension MachineCode {
  /// The instructions of `size` bytes of code at `code`, decoded from the start, each with its
  /// address; they end at the first instruction the decoder does not know (or that is cut short).
  package static func instructions(at code: UnsafeRawPointer, size: Int) -> [(address: UInt, Instruction)] {
    #if arch(x86_64)
      var decoded: [(address: UInt, Instruction)] = []
      var position = 0
      while position < size, let instruction = decode(code + position, available: size - position) {
        decoded.append((UInt(bitPattern: code + position), instruction))
        position += instruction.length
      }
      return decoded
    #else
      return []
    #endif
  }

  /// The targets of the direct calls and unconditional jumps in the `size` bytes of the function
  /// at `code`, in order (a caller keeps those that start a named function: a call, a tail call).
  package static func directBranchTargets(at code: UnsafeRawPointer, size: Int) -> [UInt] {
    instructions(at: code, size: size).compactMap { address, instruction in
      switch instruction.operation {
      case .call(let target), .jump(let target):
        return address &+ UInt(instruction.length) &+ UInt(bitPattern: target)
      default:
        return nil
      }
    }
  }

  /// Where the `size` bytes of code at `code` jump when they are only a jump, after the frame's
  /// set-up and tear-down at most (`push rbp; mov rbp, rsp; pop rbp`): the shape LLVM's function
  /// merging leaves of a function whose body another one kept. Nil for any other code.
  package static func onlyJumpTarget(at code: UnsafeRawPointer, size: Int) -> UInt? {
    for (address, instruction) in instructions(at: code, size: size) {
      switch instruction.operation {
      case .jump(let target):
        return address &+ UInt(instruction.length) &+ UInt(bitPattern: target)
      case _ where isFrameSetUpOrTearDown(instruction):
        continue
      default:
        return nil
      }
    }
    return nil
  }

  /// The addresses that the `size` bytes of code at `code` load (`lea` relative to `rip`) when the
  /// code is only a frame set-up (`push rbp; mov rbp, rsp`), such loads, the frame's tear-down
  /// (`pop rbp`) and a jump to `target`: a merged body's caller, which passes its constants and
  /// jumps to the body. Nil for any other code.
  package static func mergedCallerLoads(at code: UnsafeRawPointer, size: Int, jumpingTo target: UInt)
    -> [UInt]?
  {
    var loads: [UInt] = []
    for (address, instruction) in instructions(at: code, size: size) {
      let next = address &+ UInt(instruction.length)
      switch instruction.operation {
      case .loadAddress:
        guard instruction.operands.count == 2,
          case .register(_, width: 8, highByte: false) = instruction.operands[0],
          case .memory(let memory, _) = instruction.operands[1], memory.ripRelative, memory.index == nil,
          !memory.segmented
        else { return nil }
        loads.append(next &+ UInt(bitPattern: memory.displacement))
      case .jump(let displacement):
        return next &+ UInt(bitPattern: displacement) == target ? loads : nil
      case _ where isFrameSetUpOrTearDown(instruction):
        continue
      default:
        return nil
      }
    }
    return nil
  }

  /// The global offset table slot that a PLT stub at `code` jumps through (`jmp *slot(%rip)`,
  /// after `endbr64` at most; a `bnd` prefix is read as a prefix), reading at most `available`
  /// bytes; nil for any other code.
  package static func stubSlot(at code: UnsafeRawPointer, available: Int) -> UInt? {
    #if arch(x86_64)
      var position = 0
      // At most two instructions are read: nothing past the stub's jump.
      for _ in 0..<2 {
        guard let instruction = decode(code + position, available: available - position) else { return nil }
        position += instruction.length
        switch instruction.operation {
        case .nop where instruction.length == 4 && position == 4:  // endbr64 (F3 0F 1E FA)
          continue
        case .indirectJump:
          guard case .memory(let memory, width: 8) = instruction.operands.first, memory.ripRelative,
            memory.index == nil, !memory.segmented
          else { return nil }
          return UInt(bitPattern: code + position) &+ UInt(bitPattern: memory.displacement)
        default:
          return nil
        }
      }
    #endif
    return nil
  }

  /// `push rbp`, `mov rbp, rsp`, `pop rbp`.
  static func isFrameSetUpOrTearDown(_ instruction: Instruction) -> Bool {
    let rbp = Operand.register(.rbp, width: 8)
    switch instruction.operation {
    case .push, .pop: return instruction.operands == [rbp]
    case .move(extending: false): return instruction.operands == [rbp, .register(.rsp, width: 8)]
    default: return false
    }
  }
}
