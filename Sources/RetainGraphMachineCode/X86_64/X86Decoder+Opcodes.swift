// The opcode maps the decoder knows: the one-byte map and the 0F map (with its 0F 38 / 0F 3A SSE
// forms), each opcode classified by what it reads and writes.
extension MachineCode.Reader {
  // The decoder's types, named here as in the reader's own declaration.
  typealias Instruction = MachineCode.Instruction
  typealias Operand = MachineCode.Operand
  typealias Operation = MachineCode.Operation
  typealias Memory = MachineCode.Memory
  typealias Register = MachineCode.Register

  mutating func oneByte(_ opcode: UInt8) -> Instruction? {
    switch opcode {
    case 0x00...0x3F where opcode & 7 <= 5 && opcode & 0xC0 == 0:
      // add, or, adc, sbb, and, sub, xor, cmp in their six forms.
      let operation = Self.arithmetic[Int(opcode >> 3)]
      let byteForm = opcode & 1 == 0
      let width = byteForm ? 1 : self.width
      switch opcode & 7 {
      case 0, 1:
        guard let modRM = modRM(width: width) else { return nil }
        return done(operation, [modRM.rm, register(modRM.reg, width: width)])
      case 2, 3:
        guard let modRM = modRM(width: width) else { return nil }
        return done(operation, [register(modRM.reg, width: width), modRM.rm])
      default:
        guard let immediate = byteForm ? signed(1) : immediateZ() else { return nil }
        return done(operation, [.register(.rax, width: width), .immediate(immediate)])
      }
    case 0x50...0x57:
      return done(
        .push, [.register(Register(rawValue: Int(opcode - 0x50) + rexB).unsafelyUnwrapped, width: 8)])
    case 0x58...0x5F:
      return done(
        .pop, [.register(Register(rawValue: Int(opcode - 0x58) + rexB).unsafelyUnwrapped, width: 8)])
    case 0x63:
      guard let modRM = modRM(width: 4) else { return nil }
      return done(.move(extending: true), [register(modRM.reg, width: width), modRM.rm])
    case 0x68:
      guard let immediate = signed(4) else { return nil }
      return done(.push, [.immediate(immediate)])
    case 0x6A:
      guard let immediate = signed(1) else { return nil }
      return done(.push, [.immediate(immediate)])
    case 0x69, 0x6B:
      guard let modRM = modRM(width: width), let immediate = opcode == 0x69 ? immediateZ() : signed(1)
      else {
        return nil
      }
      return done(.readModifyWrite, [register(modRM.reg, width: width), modRM.rm, .immediate(immediate)])
    case 0x70...0x7F:
      guard let displacement = signed(1) else { return nil }
      return done(.conditionalJump(target: displacement))
    case 0x80, 0x81, 0x83:
      let width = opcode == 0x80 ? 1 : self.width
      guard let modRM = modRM(width: width), let immediate = opcode == 0x81 ? immediateZ() : signed(1)
      else {
        return nil
      }
      return done(Self.arithmetic[modRM.reg & 7], [modRM.rm, .immediate(immediate)])
    case 0x84, 0x85:
      let width = opcode == 0x84 ? 1 : self.width
      guard let modRM = modRM(width: width) else { return nil }
      return done(.compare, [modRM.rm, register(modRM.reg, width: width)])
    case 0x86, 0x87:
      let width = opcode == 0x86 ? 1 : self.width
      guard let modRM = modRM(width: width) else { return nil }
      return done(.exchange, [modRM.rm, register(modRM.reg, width: width)])
    case 0x88, 0x89:
      let width = opcode == 0x88 ? 1 : self.width
      guard let modRM = modRM(width: width) else { return nil }
      return done(.move(extending: false), [modRM.rm, register(modRM.reg, width: width)])
    case 0x8A, 0x8B:
      let width = opcode == 0x8A ? 1 : self.width
      guard let modRM = modRM(width: width) else { return nil }
      return done(.move(extending: false), [register(modRM.reg, width: width), modRM.rm])
    case 0x8D:
      guard let modRM = modRM(width: width), case .memory = modRM.rm else { return nil }
      return done(.loadAddress, [register(modRM.reg, width: width), modRM.rm])
    case 0x8F:
      guard let modRM = modRM(width: 8), modRM.reg & 7 == 0 else { return nil }
      return done(.pop, [modRM.rm])
    case 0x90 where rexB == 0:
      return done(.nop)  // nop, pause (F3 90), xchg ax, ax (66 90)
    case 0x90...0x97:
      let other = register(Int(opcode - 0x90) + rexB, width: width)
      return done(.exchange, [.register(.rax, width: width), other])
    case 0x98, 0x99:
      return done(.wideArithmetic)
    case 0xA8:
      guard let immediate = signed(1) else { return nil }
      return done(.compare, [.register(.rax, width: 1), .immediate(immediate)])
    case 0xA9:
      guard let immediate = immediateZ() else { return nil }
      return done(.compare, [.register(.rax, width: width), .immediate(immediate)])
    case 0xB0...0xB7:
      guard let immediate = signed(1) else { return nil }
      return done(
        .move(extending: false), [register(Int(opcode - 0xB0) + rexB, width: 1), .immediate(immediate)])
    case 0xB8...0xBF:
      guard let immediate = rexW ? signed(8) : immediateZ() else { return nil }
      return done(
        .move(extending: false), [register(Int(opcode - 0xB8) + rexB, width: width), .immediate(immediate)])
    case 0xC0, 0xC1, 0xD0, 0xD1, 0xD2, 0xD3:
      // Shifts and rotates (group 2); /6 is undefined.
      let width = opcode & 1 == 0 ? 1 : self.width
      guard let modRM = modRM(width: width), modRM.reg & 7 != 6 else { return nil }
      let count: Operand
      switch opcode {
      case 0xC0, 0xC1:
        guard let immediate = signed(1) else { return nil }
        count = .immediate(immediate)
      case 0xD0, 0xD1: count = .immediate(1)
      default: count = .register(.rcx, width: 1)
      }
      return done(.readModifyWrite, [modRM.rm, count])
    case 0xC2:
      guard signed(2) != nil else { return nil }
      return done(.ret)
    case 0xC3:
      return done(.ret)
    case 0xC6, 0xC7:
      let width = opcode == 0xC6 ? 1 : self.width
      guard let modRM = modRM(width: width), modRM.reg & 7 == 0,
        let immediate = opcode == 0xC6 ? signed(1) : immediateZ()
      else { return nil }
      return done(.move(extending: false), [modRM.rm, .immediate(immediate)])
    case 0xC9:
      return done(.leave)
    case 0xCC, 0xF4:
      return done(.trap)
    case 0xE8, 0xE9:
      guard let displacement = signed(4) else { return nil }
      return done(opcode == 0xE8 ? .call(target: displacement) : .jump(target: displacement))
    case 0xEB:
      guard let displacement = signed(1) else { return nil }
      return done(.jump(target: displacement))
    case 0xF6, 0xF7:
      let width = opcode == 0xF6 ? 1 : self.width
      guard let modRM = modRM(width: width) else { return nil }
      switch modRM.reg & 7 {
      case 0, 1:
        guard let immediate = opcode == 0xF6 ? signed(1) : immediateZ() else { return nil }
        return done(.compare, [modRM.rm, .immediate(immediate)])
      case 2, 3: return done(.unary, [modRM.rm])
      default: return done(.wideArithmetic, [modRM.rm])
      }
    case 0xFE:
      guard let modRM = modRM(width: 1), modRM.reg & 7 <= 1 else { return nil }
      return done(.unary, [modRM.rm])
    case 0xFF:
      guard let peek = position < available ? code.load(fromByteOffset: position, as: UInt8.self) : nil
      else {
        return nil
      }
      let kind = Int((peek >> 3) & 7)
      // call, jmp and push take a 64-bit operand.
      guard let modRM = modRM(width: [2, 4, 6].contains(kind) ? 8 : width) else { return nil }
      switch kind {
      case 0, 1: return done(.unary, [modRM.rm])
      case 2: return done(.indirectCall, [modRM.rm])
      case 4: return done(.indirectJump, [modRM.rm])
      case 6: return done(.push, [modRM.rm])
      default: return nil
      }
    default:
      return nil
    }
  }

  mutating func twoByte() -> Instruction? {
    guard let opcode = byte() else { return nil }
    switch opcode {
    case 0x0B:
      return done(.trap)
    case 0x1E where repeatPrefix == 0xF3:
      // endbr64 (F3 0F 1E FA) and endbr32 (FB).
      guard let next = byte(), next == 0xFA || next == 0xFB else { return nil }
      return done(.nop)
    case 0x1F:
      guard modRM(width: width) != nil else { return nil }
      return done(.nop)
    case 0x10, 0x11:
      // movups/movupd (16 bytes), movss (F3, 4), movsd (F2, 8).
      let size = repeatPrefix == 0xF3 ? 4 : repeatPrefix == 0xF2 ? 8 : 16
      guard let modRM = modRM(width: size, vector: true) else { return nil }
      let register = Operand.vector(modRM.reg)
      // A register-to-register movss/movsd merges into the destination.
      let merging = size < 16 && modRM.mod == 3
      let operation: Operation = merging ? .readModifyWrite : .move(extending: false)
      return done(operation, opcode == 0x10 ? [register, modRM.rm] : [modRM.rm, register])
    case 0x12, 0x13, 0x16, 0x17:
      // movlps/movlpd, movhps/movhpd (66): 8 bytes between memory and half an XMM register; 12
      // and 16 load (merging into the register; register forms movhlps/movlhps), 13 and 17 store.
      guard repeatPrefix == 0, let modRM = modRM(width: 8, vector: true) else { return nil }
      if opcode & 1 == 1 {
        guard modRM.mod != 3 else { return nil }
        return done(.move(extending: false), [modRM.rm, .vector(modRM.reg)])
      }
      return done(.readModifyWrite, [.vector(modRM.reg), modRM.rm])
    case 0x28, 0x29, 0x6F, 0x7F:
      // movaps/movapd; movdqa (66), movdqu (F3); without a prefix 6F/7F are MMX: not decoded.
      if opcode >= 0x6F && !operandSize16 && repeatPrefix != 0xF3 { return nil }
      if opcode <= 0x29 && repeatPrefix != 0 { return nil }
      guard let modRM = modRM(width: 16, vector: true) else { return nil }
      let register = Operand.vector(modRM.reg)
      return done(
        .move(extending: false),
        opcode == 0x28 || opcode == 0x6F ? [register, modRM.rm] : [modRM.rm, register])
    case 0x2E, 0x2F:
      guard repeatPrefix == 0, let modRM = modRM(width: operandSize16 ? 8 : 4, vector: true) else {
        return nil
      }
      return done(.compare, [.vector(modRM.reg), modRM.rm])
    case 0x40...0x4F:
      guard let modRM = modRM(width: width) else { return nil }
      return done(.readModifyWrite, [register(modRM.reg, width: width), modRM.rm])
    case 0x51, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5C, 0x5D, 0x5E, 0x5F, 0x14, 0x15:
      // SSE arithmetic and logic (sqrt, and, andn, or, xor, add, mul, sub, min, div, max, unpck).
      let size = repeatPrefix == 0xF3 ? 4 : repeatPrefix == 0xF2 ? 8 : 16
      guard let modRM = modRM(width: size, vector: true) else { return nil }
      return done(.readModifyWrite, [.vector(modRM.reg), modRM.rm])
    case 0x60...0x6D, 0x74...0x76, 0xD4, 0xDB, 0xDF, 0xEB, 0xEF, 0xFA...0xFE, 0xF8, 0xF9:
      // SSE2 integer operations (66 prefix only; without it these are MMX).
      guard operandSize16, repeatPrefix == 0, let modRM = modRM(width: 16, vector: true) else { return nil }
      return done(.readModifyWrite, [.vector(modRM.reg), modRM.rm])
    case 0x70:
      // pshufd (66), pshufhw (F3), pshuflw (F2).
      guard operandSize16 || repeatPrefix != 0, let modRM = modRM(width: 16, vector: true),
        let immediate = signed(1)
      else { return nil }
      return done(.move(extending: true), [.vector(modRM.reg), modRM.rm, .immediate(immediate)])
    case 0x6E:
      // movd/movq xmm, r/m (66).
      guard operandSize16, repeatPrefix == 0, let modRM = modRM(width: rexW ? 8 : 4) else { return nil }
      return done(.move(extending: true), [.vector(modRM.reg), modRM.rm])
    case 0x7E:
      if repeatPrefix == 0xF3 {
        // movq xmm, xmm/m64.
        guard let modRM = modRM(width: 8, vector: true) else { return nil }
        return done(.move(extending: true), [.vector(modRM.reg), modRM.rm])
      }
      // movd/movq r/m, xmm (66).
      guard operandSize16, repeatPrefix == 0, let modRM = modRM(width: rexW ? 8 : 4) else { return nil }
      return done(.move(extending: false), [modRM.rm, .vector(modRM.reg)])
    case 0xD6:
      guard operandSize16, repeatPrefix == 0, let modRM = modRM(width: 8, vector: true) else { return nil }
      return done(.move(extending: false), [modRM.rm, .vector(modRM.reg)])
    case 0xD7:
      // pmovmskb r32, xmm (66).
      guard operandSize16, let modRM = modRM(width: 16, vector: true), modRM.mod == 3 else { return nil }
      return done(.move(extending: true), [register(modRM.reg, width: 4), modRM.rm])
    case 0x80...0x8F:
      guard let displacement = signed(4) else { return nil }
      return done(.conditionalJump(target: displacement))
    case 0x90...0x9F:
      guard let modRM = modRM(width: 1) else { return nil }
      return done(.writeOnly, [modRM.rm])
    case 0xA3:
      guard let modRM = modRM(width: width) else { return nil }
      return done(.compare, [modRM.rm, register(modRM.reg, width: width)])
    case 0xAB, 0xB3, 0xBB:
      guard let modRM = modRM(width: width) else { return nil }
      return done(.readModifyWrite, [modRM.rm, register(modRM.reg, width: width)])
    case 0xA4, 0xAC:
      guard let modRM = modRM(width: width), let immediate = signed(1) else { return nil }
      return done(.readModifyWrite, [modRM.rm, register(modRM.reg, width: width), .immediate(immediate)])
    case 0xA5, 0xAD:
      guard let modRM = modRM(width: width) else { return nil }
      return done(
        .readModifyWrite, [modRM.rm, register(modRM.reg, width: width), .register(.rcx, width: 1)])
    case 0xAF:
      guard let modRM = modRM(width: width) else { return nil }
      return done(.readModifyWrite, [register(modRM.reg, width: width), modRM.rm])
    case 0xB0, 0xB1:
      let width = opcode == 0xB0 ? 1 : self.width
      guard let modRM = modRM(width: width) else { return nil }
      return done(.compareExchange, [modRM.rm, register(modRM.reg, width: width)])
    case 0xB6, 0xB7, 0xBE, 0xBF:
      let sourceWidth = opcode & 1 == 0 ? 1 : 2
      guard let modRM = modRM(width: sourceWidth) else { return nil }
      return done(.move(extending: true), [register(modRM.reg, width: width), modRM.rm])
    case 0xB8 where repeatPrefix == 0xF3, 0xBC, 0xBD:
      // popcnt (F3 B8), bsf/tzcnt, bsr/lzcnt: the destination is written from the source.
      guard let modRM = modRM(width: width) else { return nil }
      return done(.move(extending: true), [register(modRM.reg, width: width), modRM.rm])
    case 0xBA:
      guard let modRM = modRM(width: width), modRM.reg & 7 >= 4, let immediate = signed(1) else {
        return nil
      }
      return done(modRM.reg & 7 == 4 ? .compare : .readModifyWrite, [modRM.rm, .immediate(immediate)])
    case 0xC0, 0xC1:
      let width = opcode == 0xC0 ? 1 : self.width
      guard let modRM = modRM(width: width) else { return nil }
      return done(.readModifyWrite, [modRM.rm, register(modRM.reg, width: width)])
    case 0xC8...0xCF:
      return done(.unary, [register(Int(opcode - 0xC8) + rexB, width: width)])
    case 0x38, 0x3A:
      // SSSE3/SSE4 operations between XMM registers and memory (66 prefix) that read both operands
      // and write only the first; the forms that move to or from general-purpose registers or
      // write implicit registers (pextr, pinsr, pcmpestr…) are not decoded.
      guard operandSize16, repeatPrefix == 0, let third = byte() else { return nil }
      let known: [ClosedRange<UInt8>] =
        opcode == 0x38
        ? [
          0x00...0x0B, 0x10...0x10, 0x14...0x15, 0x17...0x17, 0x1C...0x1E, 0x20...0x25, 0x28...0x2B,
          0x30...0x35,
          0x37...0x40,
        ]
        : [0x08...0x0F, 0x40...0x42]
      guard known.contains(where: { $0.contains(third) }), let modRM = modRM(width: 16, vector: true) else {
        return nil
      }
      if opcode == 0x3A { guard signed(1) != nil else { return nil } }
      return done(.readModifyWrite, [.vector(modRM.reg), modRM.rm])
    default:
      return nil
    }
  }
}
