/// An x86_64 instruction decoder for the subset of instructions the Swift compiler emits
/// (`Sources/RetainGraphRuntime/README.md`, "Frame liveness"): legacy prefixes, REX, the one-byte
/// and 0F opcode maps, the 0F 38 / 0F 3A maps with a 66 prefix (SSE), ModRM, SIB, displacements and
/// immediates. An opcode it does not know fully decodes to nil: the caller then stops reading that
/// path and assumes nothing. VEX and EVEX (AVX) are not decoded (measured: the test binaries'
/// partial functions contain none, debug or release).
extension MachineCode {
  /// The instruction at `code`, reading at most `available` bytes; nil when it is not one this
  /// decoder knows fully (or is cut short).
  package static func decode(_ code: UnsafeRawPointer, available: Int) -> Instruction? {
    var reader = Reader(code: code, available: min(available, 15))
    return reader.instruction()
  }

  /// Decodes a byte string (tests).
  package static func decode(_ bytes: [UInt8]) -> Instruction? {
    bytes.withUnsafeBytes { buffer in
      guard let base = buffer.baseAddress else { return nil }
      return decode(base, available: buffer.count)
    }
  }

  struct Reader {
    let code: UnsafeRawPointer
    let available: Int
    var position = 0
    var rex: UInt8 = 0
    var operandSize16 = false
    var repeatPrefix: UInt8 = 0  // F2 or F3
    var segmented = false

    init(code: UnsafeRawPointer, available: Int) {
      self.code = code
      self.available = available
    }

    var rexW: Bool { rex & 8 != 0 }
    var rexR: Int { rex & 4 != 0 ? 8 : 0 }
    var rexX: Int { rex & 2 != 0 ? 8 : 0 }
    var rexB: Int { rex & 1 != 0 ? 8 : 0 }
    /// The operand size of a `v` operand: 8 with REX.W, 2 with 66, else 4.
    var width: Int { rexW ? 8 : operandSize16 ? 2 : 4 }

    mutating func byte() -> UInt8? {
      guard position < available else { return nil }
      defer { position += 1 }
      return code.load(fromByteOffset: position, as: UInt8.self)
    }

    mutating func signed(_ size: Int) -> Int? {
      guard position + size <= available else { return nil }
      defer { position += size }
      switch size {
      case 1: return Int(code.load(fromByteOffset: position, as: Int8.self))
      case 2: return Int(code.loadUnaligned(fromByteOffset: position, as: Int16.self))
      case 4: return Int(code.loadUnaligned(fromByteOffset: position, as: Int32.self))
      default: return Int(code.loadUnaligned(fromByteOffset: position, as: Int64.self))
      }
    }

    /// An immediate of a `z` operand: 2 bytes with 66, else 4 (sign-extended to 64 with REX.W).
    mutating func immediateZ() -> Int? { signed(operandSize16 ? 2 : 4) }

    func register(_ number: Int, width: Int) -> Operand {
      // Without REX, byte registers 4-7 are ah, ch, dh, bh.
      if width == 1 && rex == 0 && (4...7).contains(number) {
        return .register(Register(rawValue: number - 4).unsafelyUnwrapped, width: 1, highByte: true)
      }
      return .register(Register(rawValue: number).unsafelyUnwrapped, width: width)
    }

    /// A ModRM byte: its `reg` field (with REX.R) and its r/m operand.
    struct ModRM {
      var reg: Int
      var mod: Int
      var rm: Operand
    }

    mutating func modRM(width: Int, vector: Bool = false) -> ModRM? {
      guard let value = byte() else { return nil }
      let mod = Int(value >> 6)
      let reg = Int((value >> 3) & 7) + rexR
      let rm = Int(value & 7)
      if mod == 3 {
        let number = rm + rexB
        return ModRM(reg: reg, mod: mod, rm: vector ? .vector(number) : register(number, width: width))
      }
      var memory = Memory(displacement: 0, segmented: segmented)
      if rm == 4 {
        guard let sib = byte() else { return nil }
        let scale = 1 << Int(sib >> 6)
        let index = Int((sib >> 3) & 7) + rexX
        let base = Int(sib & 7)
        if index != 4 { memory.index = Register(rawValue: index) }
        memory.scale = scale
        if base == 5 && mod == 0 {
          guard let displacement = signed(4) else { return nil }
          memory.displacement = displacement
          return ModRM(reg: reg, mod: mod, rm: .memory(memory, width: width))
        }
        memory.base = Register(rawValue: base + rexB)
      } else if rm == 5 && mod == 0 {
        guard let displacement = signed(4) else { return nil }
        memory.ripRelative = true
        memory.displacement = displacement
        return ModRM(reg: reg, mod: mod, rm: .memory(memory, width: width))
      } else {
        memory.base = Register(rawValue: rm + rexB)
      }
      if mod == 1 {
        guard let displacement = signed(1) else { return nil }
        memory.displacement = displacement
      } else if mod == 2 {
        guard let displacement = signed(4) else { return nil }
        memory.displacement = displacement
      }
      return ModRM(reg: reg, mod: mod, rm: .memory(memory, width: width))
    }

    func done(_ operation: Operation, _ operands: [Operand] = []) -> Instruction {
      Instruction(length: position, operation: operation, operands: operands)
    }

    mutating func instruction() -> Instruction? {
      var opcode: UInt8
      // Legacy prefixes (any order, repeated), then at most one REX right before the opcode.
      while true {
        guard let next = byte() else { return nil }
        switch next {
        case 0x66: operandSize16 = true
        case 0xF2, 0xF3: repeatPrefix = next
        case 0x2E, 0x3E, 0x26, 0x36, 0xF0: break  // segment hints (ignored in 64-bit mode), lock
        case 0x64, 0x65: segmented = true
        default:
          opcode = next
          if (0x40...0x4F).contains(next) {
            rex = next
            guard let afterREX = byte() else { return nil }
            opcode = afterREX
          }
          return opcode == 0x0F ? twoByte() : oneByte(opcode)
        }
      }
    }

    static let arithmetic: [Operation] = [
      .add, .readModifyWrite, .readModifyWrite, .readModifyWrite, .readModifyWrite, .subtract,
      .readModifyWrite, .compare,
    ]
  }
}
