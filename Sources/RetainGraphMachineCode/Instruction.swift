/// Machine code as the readers see it: one instruction model, each instruction classified by what it
/// reads and writes (its ``Operation`` and operands, destination first), made by the decoder of an
/// architecture (x86_64: `X86_64/X86Decoder.swift`) and read by the matchers (`CodeMatchers.swift`)
/// and by frame liveness in the core.
package enum MachineCode {
  /// A general-purpose register, numbered as the encoding numbers it (REX.B/R/X give bit 3).
  package enum Register: Int, CaseIterable, Sendable {
    case rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8, r9, r10, r11, r12, r13, r14, r15
  }

  /// A memory operand `segment:[base + index * scale + displacement]`; `ripRelative` when the base
  /// is the next instruction's address.
  package struct Memory: Equatable, Sendable {
    package var base: Register?
    package var index: Register?
    package var scale: Int = 1
    package var displacement: Int
    package var ripRelative = false
    /// An `fs` or `gs` override (thread-local storage).
    package var segmented = false

    package init(
      base: Register? = nil, index: Register? = nil, scale: Int = 1, displacement: Int,
      ripRelative: Bool = false,
      segmented: Bool = false
    ) {
      self.base = base
      self.index = index
      self.scale = scale
      self.displacement = displacement
      self.ripRelative = ripRelative
      self.segmented = segmented
    }
  }

  package enum Operand: Equatable, Sendable {
    /// A general-purpose register read or written over `width` bytes (1, 2, 4, 8); `highByte` for
    /// `ah`, `ch`, `dh`, `bh`.
    case register(Register, width: Int, highByte: Bool = false)
    /// An XMM (or x87/MMX-free SSE) register.
    case vector(Int)
    case memory(Memory, width: Int)
    case immediate(Int)
  }

  /// What an instruction does, as far as the liveness reader needs it. Operands are listed
  /// destination first.
  package enum Operation: Equatable, Sendable {
    /// `mov`, `movabs`, `movzx`/`movsx`/`movsxd` (extending: the value is not a copy),
    /// SSE moves: writes the destination with the source.
    case move(extending: Bool)
    /// `lea`: the destination is the memory operand's address; no memory is accessed.
    case loadAddress
    /// `add`/`sub` (a tracked pointer plus or minus a constant stays tracked).
    case add, subtract
    /// Any other two-operand operation that reads both operands and writes the destination
    /// (`and`, `or`, `xor`, `adc`, `sbb`, shifts, `imul`, `cmov`, `bts`/`btr`/`btc`, `xadd`, SSE
    /// arithmetic).
    case readModifyWrite
    /// Reads every operand and writes none (`cmp`, `test`, `bt`, `ucomiss`).
    case compare
    /// Writes the destination without reading it (`setcc`).
    case writeOnly
    /// Reads and writes its only operand (`inc`, `dec`, `neg`, `not`, `bswap`).
    case unary
    /// `mul`, `imul`, `div`, `idiv` with one operand: reads it, writes `rax` and `rdx`; `cltq`,
    /// `cqto` (no operand).
    case wideArithmetic
    /// `xchg`: reads and writes both operands, swapping them.
    case exchange
    /// `cmpxchg`: reads and writes its destination and `rax`, reads its source.
    case compareExchange
    case push, pop
    /// `leave`: `rsp = rbp; pop rbp`.
    case leave
    /// A direct call or jump: `target` is relative to the next instruction.
    case call(target: Int)
    case jump(target: Int)
    case conditionalJump(target: Int)
    /// A call or jump through its operand (register or memory).
    case indirectCall, indirectJump
    case ret
    /// `ud2`, `int3`, `hlt`: the process stops here.
    case trap
    case nop
  }

  package struct Instruction: Equatable, Sendable {
    /// Its length in bytes: the next instruction starts there.
    package var length: Int
    package var operation: Operation
    package var operands: [Operand] = []

    package init(length: Int, operation: Operation, operands: [Operand] = []) {
      self.length = length
      self.operation = operation
      self.operands = operands
    }
  }
}
