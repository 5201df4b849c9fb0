// The readers are built with the package trait BinaryReaders only (Package.swift).
#if BinaryReaders
  import RetainGraphMachineCode
  import Testing

  /// The x86_64 decoder the matchers and the frame liveness reader use (`MachineCode.decode`), on byte strings assembled by
  /// hand from the Intel SDM (volume 2) for each instruction form it supports; the lengths were also
  /// checked against `objdump -D -b binary -mi386:x86-64` once, by hand.
  @Suite("x86_64 instruction decoder")
  struct X86DecoderTests {
    typealias Memory = MachineCode.Memory

    static func register(_ register: MachineCode.Register, _ width: Int = 8) -> MachineCode.Operand {
      .register(register, width: width)
    }

    static func memory(
      _ base: MachineCode.Register?, _ displacement: Int, width: Int = 8, index: MachineCode.Register? = nil,
      scale: Int = 1
    ) -> MachineCode.Operand {
      .memory(Memory(base: base, index: index, scale: scale, displacement: displacement), width: width)
    }

    /// Each form: its bytes, then the length, operation and operands the decoder must give.
    static let forms: [(String, [UInt8], Int, MachineCode.Operation, [MachineCode.Operand])] = [
      ("push rbp (50+r)", [0x55], 1, .push, [register(.rbp)]),
      ("push r14 (REX.B 50+r)", [0x41, 0x56], 2, .push, [register(.r14)]),
      ("pop r14 (REX.B 58+r)", [0x41, 0x5E], 2, .pop, [register(.r14)]),
      (
        "lea rbp, [rsp+8] (8D, SIB, disp8)", [0x48, 0x8D, 0x6C, 0x24, 0x08], 5, .loadAddress,
        [register(.rbp), memory(.rsp, 8)]
      ),
      (
        "sub rsp, 0x38 (83 /5 ib)", [0x48, 0x83, 0xEC, 0x38], 4, .subtract,
        [register(.rsp), .immediate(0x38)]
      ),
      (
        "mov [rbp-0x10], r14 (89, REX.R)", [0x4C, 0x89, 0x75, 0xF0], 4, .move(extending: false),
        [memory(.rbp, -16), register(.r14)]
      ),
      (
        "mov rax, [r14+0xa0] (8B, disp32)", [0x49, 0x8B, 0x86, 0xA0, 0, 0, 0], 7, .move(extending: false),
        [register(.rax), memory(.r14, 0xA0)]
      ),
      (
        "mov r14, [r14] (8B, mod 00)", [0x4D, 0x8B, 0x36], 3, .move(extending: false),
        [register(.r14), memory(.r14, 0)]
      ),
      (
        "mov r9, [rax+rcx*8] (SIB)", [0x4C, 0x8B, 0x0C, 0xC8], 4, .move(extending: false),
        [register(.r9), memory(.rax, 0, index: .rcx, scale: 8)]
      ),
      (
        "lea rcx, [rip+0x3b]", [0x48, 0x8D, 0x0D, 0x3B, 0, 0, 0], 7, .loadAddress,
        [register(.rcx), .memory(Memory(displacement: 0x3B, ripRelative: true), width: 8)]
      ),
      (
        "mov rax, fs:[0x28] (64, SIB without base)", [0x64, 0x48, 0x8B, 0x04, 0x25, 0x28, 0, 0, 0], 9,
        .move(extending: false),
        [register(.rax), .memory(Memory(displacement: 0x28, segmented: true), width: 8)]
      ),
      (
        "mov qword [r14+0x60], 0xc3 (C7 /0 id)", [0x49, 0xC7, 0x46, 0x60, 0xC3, 0, 0, 0], 8,
        .move(extending: false),
        [memory(.r14, 0x60), .immediate(0xC3)]
      ),
      (
        "mov byte [r14+0x50], 1 (C6 /0 ib)", [0x41, 0xC6, 0x46, 0x50, 0x01], 5, .move(extending: false),
        [memory(.r14, 0x50, width: 1), .immediate(1)]
      ),
      (
        "movabs rax, imm64 (REX.W B8+r)", [0x48, 0xB8, 0, 0, 0x40, 0xEE, 0x61, 0x3E, 0x09, 0x28], 10,
        .move(extending: false), [register(.rax), .immediate(0x2809_3E61_EE40_0000)]
      ),
      (
        "movzx eax, byte [rcx+0x50] (0F B6)", [0x0F, 0xB6, 0x41, 0x50], 4, .move(extending: true),
        [register(.rax, 4), memory(.rcx, 0x50, width: 1)]
      ),
      (
        "movsxd rcx, eax (63)", [0x48, 0x63, 0xC8], 3, .move(extending: true),
        [register(.rcx), register(.rax, 4)]
      ),
      ("test al, 1 (A8 ib)", [0xA8, 0x01], 2, .compare, [register(.rax, 1), .immediate(1)]),
      ("test rax, rax (85)", [0x48, 0x85, 0xC0], 3, .compare, [register(.rax), register(.rax)]),
      ("xor eax, eax (31)", [0x31, 0xC0], 2, .readModifyWrite, [register(.rax, 4), register(.rax, 4)]),
      (
        "btr rbp, 0x3c (0F BA /6 ib)", [0x48, 0x0F, 0xBA, 0xF5, 0x3C], 5, .readModifyWrite,
        [register(.rbp), .immediate(0x3C)]
      ),
      (
        "shr rax, 4 (C1 /5 ib)", [0x48, 0xC1, 0xE8, 0x04], 4, .readModifyWrite,
        [register(.rax), .immediate(4)]
      ),
      (
        "cmove r8, rcx (0F 44)", [0x4C, 0x0F, 0x44, 0xC1], 4, .readModifyWrite,
        [register(.r8), register(.rcx)]
      ),
      ("inc r14 (FF /0)", [0x49, 0xFF, 0xC6], 3, .unary, [register(.r14)]),
      ("div rcx (F7 /6)", [0x48, 0xF7, 0xF1], 3, .wideArithmetic, [register(.rcx)]),
      ("sete al (0F 94)", [0x0F, 0x94, 0xC0], 3, .writeOnly, [register(.rax, 1)]),
      ("xchg [rbx], rax (87)", [0x48, 0x87, 0x03], 3, .exchange, [memory(.rbx, 0), register(.rax)]),
      (
        "lock cmpxchg [rdx], rcx (F0 0F B1)", [0xF0, 0x48, 0x0F, 0xB1, 0x0A], 5, .compareExchange,
        [memory(.rdx, 0), register(.rcx)]
      ),
      (
        "movups [r14+0x40], xmm0 (0F 11)", [0x41, 0x0F, 0x11, 0x46, 0x40], 5, .move(extending: false),
        [memory(.r14, 0x40, width: 16), .vector(0)]
      ),
      (
        "movaps xmm0, xmm1 (0F 28)", [0x0F, 0x28, 0xC1], 3, .move(extending: false), [.vector(0), .vector(1)]
      ),
      ("xorps xmm0, xmm0 (0F 57)", [0x0F, 0x57, 0xC0], 3, .readModifyWrite, [.vector(0), .vector(0)]),
      (
        "pxor xmm0, xmm0 (66 0F EF)", [0x66, 0x0F, 0xEF, 0xC0], 4, .readModifyWrite, [.vector(0), .vector(0)]
      ),
      (
        "movq xmm0, rdi (66 REX.W 0F 6E)", [0x66, 0x48, 0x0F, 0x6E, 0xC7], 5, .move(extending: true),
        [.vector(0), register(.rdi)]
      ),
      (
        "movq [rdi+8], xmm0 (66 0F D6)", [0x66, 0x0F, 0xD6, 0x47, 0x08], 5, .move(extending: false),
        [memory(.rdi, 8), .vector(0)]
      ),
      (
        "movq xmm0, [rdi+8] (F3 0F 7E)", [0xF3, 0x0F, 0x7E, 0x47, 0x08], 5, .move(extending: true),
        [.vector(0), memory(.rdi, 8)]
      ),
      (
        "movsd xmm0, [rdi+8] (F2 0F 10)", [0xF2, 0x0F, 0x10, 0x47, 0x08], 5, .move(extending: false),
        [.vector(0), memory(.rdi, 8)]
      ),
      (
        "movlps [r14+0x30], xmm0 (0F 13)", [0x41, 0x0F, 0x13, 0x46, 0x30], 5, .move(extending: false),
        [memory(.r14, 0x30), .vector(0)]
      ),
      (
        "movhps xmm1, [rdi] (0F 16)", [0x0F, 0x16, 0x0F], 3, .readModifyWrite, [.vector(1), memory(.rdi, 0)]
      ),
      (
        "pshufb xmm0, xmm1 (66 0F 38 00)", [0x66, 0x0F, 0x38, 0x00, 0xC1], 5, .readModifyWrite,
        [.vector(0), .vector(1)]
      ),
      (
        "palignr xmm0, xmm1, 8 (66 0F 3A 0F ib)", [0x66, 0x0F, 0x3A, 0x0F, 0xC1, 0x08], 6, .readModifyWrite,
        [.vector(0), .vector(1)]
      ),
      ("call rel32 (E8)", [0xE8, 0x10, 0, 0, 0], 5, .call(target: 0x10), []),
      ("jmp rel32 (E9)", [0xE9, 0xF0, 0xFF, 0xFF, 0xFF], 5, .jump(target: -16), []),
      ("jmp rel8 (EB)", [0xEB, 0x05], 2, .jump(target: 5), []),
      ("jne rel8 (75)", [0x75, 0x4B], 2, .conditionalJump(target: 0x4B), []),
      ("jne rel32 (0F 85)", [0x0F, 0x85, 0x00, 0x01, 0, 0], 6, .conditionalJump(target: 0x100), []),
      ("jmp rax (FF /4)", [0xFF, 0xE0], 2, .indirectJump, [register(.rax)]),
      ("jmp [r8+8] (FF /4)", [0x41, 0xFF, 0x60, 0x08], 4, .indirectJump, [memory(.r8, 8)]),
      ("call r12 (FF /2)", [0x41, 0xFF, 0xD4], 3, .indirectCall, [register(.r12)]),
      ("call [r15+0xb0] (FF /2)", [0x41, 0xFF, 0x97, 0xB0, 0, 0, 0], 7, .indirectCall, [memory(.r15, 0xB0)]),
      ("ret (C3)", [0xC3], 1, .ret, []),
      ("leave (C9)", [0xC9], 1, .leave, []),
      ("ud2 (0F 0B)", [0x0F, 0x0B], 2, .trap, []),
      ("int3 (CC)", [0xCC], 1, .trap, []),
      ("nop dword [rax+rax] (0F 1F /0)", [0x0F, 0x1F, 0x44, 0x00, 0x00], 5, .nop, []),
      (
        "data16 cs nop word [rax+rax+0] (66 66 2E 0F 1F)",
        [0x66, 0x66, 0x2E, 0x0F, 0x1F, 0x84, 0, 0, 0, 0, 0],
        11,
        .nop, []
      ),
      ("endbr64 (F3 0F 1E FA)", [0xF3, 0x0F, 0x1E, 0xFA], 4, .nop, []),
    ]

    @Test func eachSupportedFormDecodes() {
      for (name, bytes, length, operation, operands) in Self.forms {
        let instruction = MachineCode.decode(bytes)
        #expect(instruction?.length == length, "\(name)")
        #expect(instruction?.operation == operation, "\(name)")
        #expect(instruction?.operands == operands, "\(name)")
        // Cut short by one byte, it is not an instruction.
        #expect(MachineCode.decode(Array(bytes.dropLast())) == nil, "\(name) cut short")
      }
    }

    /// `ah` (no REX) is rax's second byte; with REX the same number is `spl`.
    @Test func highByteRegisters() {
      #expect(
        MachineCode.decode([0x88, 0xE0])?.operands == [
          .register(.rax, width: 1), .register(.rax, width: 1, highByte: true),
        ])
      #expect(
        MachineCode.decode([0x40, 0x88, 0xE0])?.operands == [
          .register(.rax, width: 1), .register(.rsp, width: 1),
        ])
    }

    /// What the decoder does not know is nil: VEX (C4, C5) and EVEX (62), x87 (D8–DF), string
    /// operations (`rep stosq`), `syscall`, MMX forms of SSE2 opcodes, `pextrq`, 32-bit addresses (67).
    @Test func unknownOpcodesAreNil() {
      for bytes: [UInt8] in [
        [0xC4, 0xE2, 0x79, 0x00, 0xC1], [0xC5, 0xF8, 0x77], [0x62, 0xF1, 0x7C, 0x48, 0x10, 0xC1],
        [0xD8, 0xC0], [0xF3, 0x48, 0xAB], [0x0F, 0x05], [0x0F, 0xEF, 0xC0],
        [0x66, 0x48, 0x0F, 0x3A, 0x16, 0xC0, 0x01],
        [0x67, 0x8B, 0x00], [0xFF, 0xF8], [0x8F, 0xC8],
      ] {
        #expect(MachineCode.decode(bytes) == nil, "\(bytes)")
      }
    }
  }
#endif
