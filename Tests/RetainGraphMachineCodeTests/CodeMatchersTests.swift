// The readers are built with the package trait BinaryReaders only (Package.swift).
#if BinaryReaders
  import RetainGraphMachineCode
  import Testing

  /// The matchers on byte strings written in the test (x86_64 encodings from the Intel SDM, volume 2):
  /// direct calls and jumps, a body that is only a jump, a merged body's caller, a PLT stub, and code
  /// cut short or holding an instruction the decoder does not know.
  #if arch(x86_64)
    struct CodeMatchersTests {
      /// Runs `body` with the bytes at a stable address and that address.
      func withCode<Result>(_ bytes: [UInt8], _ body: (UnsafeRawPointer, UInt) -> Result) -> Result {
        bytes.withUnsafeBytes { buffer in
          let start = buffer.baseAddress.unsafelyUnwrapped
          return body(start, UInt(bitPattern: start))
        }
      }

      static func rel32(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }

      /// Calls and jumps are found at instruction boundaries, relative to the next instruction; bytes
      /// that only look like a call inside another instruction are not (a byte-by-byte scan would
      /// read `mov eax, 0x10E8`'s immediate as a call candidate).
      @Test func directCallsAndJumpsAreDecoded() {
        let code: [UInt8] =
          [0x55, 0x48, 0x89, 0xE5]  // push rbp; mov rbp, rsp
          + [0xB8, 0xE8, 0x10, 0x00, 0x00]  // mov eax, 0x10E8: holds an E8 byte
          + [0xE8] + Self.rel32(0x100)  // call +0x100
          + [0x74, 0x02]  // je +2 (conditional: not a direct branch)
          + [0x5D]  // pop rbp
          + [0xE9] + Self.rel32(-0x40)  // jmp -0x40 (a tail call)
        withCode(code) { start, address in
          #expect(
            MachineCode.directBranchTargets(at: start, size: code.count) == [
              address + 14 + 0x100, address + 22 - 0x40,
            ])
          // Cut inside the tail call: only the call.
          #expect(MachineCode.directBranchTargets(at: start, size: code.count - 1) == [address + 14 + 0x100])
        }
      }

      /// Decoding stops at an instruction it does not know (VEX): nothing after it is guessed.
      @Test func decodingStopsAtAnUnknownInstruction() {
        let code: [UInt8] =
          [0xE8] + Self.rel32(0x20)
          + [0xC5, 0xF8, 0x77]  // vzeroupper (VEX)
          + [0xE8] + Self.rel32(0x30)
        withCode(code) { start, address in
          #expect(MachineCode.instructions(at: start, size: code.count).count == 1)
          #expect(MachineCode.directBranchTargets(at: start, size: code.count) == [address + 5 + 0x20])
        }
      }

      /// A merged function's body: only a jump, with or without the frame's set-up and tear-down.
      @Test func onlyAJumpIsAMergedTwin() {
        let bare: [UInt8] = [0xE9] + Self.rel32(0x1000)
        withCode(bare) { start, address in
          #expect(MachineCode.onlyJumpTarget(at: start, size: bare.count) == address + 5 + 0x1000)
          #expect(MachineCode.onlyJumpTarget(at: start, size: bare.count - 1) == nil)
        }
        let framed: [UInt8] = [0x55, 0x48, 0x89, 0xE5, 0x5D, 0xE9] + Self.rel32(-0x200)
        withCode(framed) { start, address in
          #expect(MachineCode.onlyJumpTarget(at: start, size: framed.count) == address + 10 - 0x200)
        }
        // Anything else before the jump: not a twin.
        let work: [UInt8] = [0x55, 0x48, 0x89, 0xE5, 0x31, 0xC0, 0x5D, 0xE9] + Self.rel32(0)
        withCode(work) { start, _ in #expect(MachineCode.onlyJumpTarget(at: start, size: work.count) == nil) }
        let call: [UInt8] = [0xE8] + Self.rel32(0)
        withCode(call) { start, _ in #expect(MachineCode.onlyJumpTarget(at: start, size: call.count) == nil) }
      }

      /// A merged body's caller (census task starters in optimised builds): the code of
      /// `ChildTaskStarter.startAsyncLet()` in a release build of the census tests (frame set-up, two
      /// loads relative to rip, the async function pointer of its task's closure the second,
      /// tear-down, a jump to the body it shares with `startGroup()`) is read as a caller of that
      /// body, with the addresses it loads; other code is not.
      @Test func mergedBodyCallersAreRead() {
        let code: [UInt8] = [
          0x55, 0x48, 0x89, 0xE5, 0x48, 0x8D, 0x3D, 0xF5, 0x64, 0x57, 0x00, 0x48, 0x8D, 0x35, 0xEE, 0x55,
          0x59,
          0x00, 0x5D, 0xE9, 0xD8, 0xA4, 0xFF, 0xFF,
        ]
        withCode(code) { start, address in
          let body = address + 24 - 0x5B28
          #expect(
            MachineCode.mergedCallerLoads(at: start, size: code.count, jumpingTo: body)
              == [address + 11 + 0x5764F5, address + 18 + 0x5955EE])
          #expect(MachineCode.mergedCallerLoads(at: start, size: code.count, jumpingTo: body + 1) == nil)
          #expect(MachineCode.mergedCallerLoads(at: start, size: code.count - 1, jumpingTo: body) == nil)
        }
        // A call (E8) where the jump should be: not a merged body's caller.
        let call: [UInt8] = [0x55, 0x48, 0x89, 0xE5, 0x5D, 0xE8, 0x00, 0x00, 0x00, 0x00]
        withCode(call) { start, address in
          #expect(MachineCode.mergedCallerLoads(at: start, size: call.count, jumpingTo: address + 10) == nil)
        }
        // A load through a register, not relative to rip: not one either.
        let load: [UInt8] = [0x55, 0x48, 0x8D, 0x7D, 0x08, 0x5D, 0xE9] + Self.rel32(0)
        withCode(load) { start, address in
          #expect(MachineCode.mergedCallerLoads(at: start, size: load.count, jumpingTo: address + 11) == nil)
        }
      }

      /// PLT stubs: `jmp *slot(%rip)` (FF 25), after `endbr64` and with a `bnd` prefix (F2) as the
      /// linker writes them with IBT and MPX; the slot is relative to the next instruction.
      @Test func stubSlotsAreRead() {
        let plain: [UInt8] =
          [0xFF, 0x25] + Self.rel32(0x2FE2) + [0x68, 0, 0, 0, 0, 0xE9] + Self.rel32(-0x20)
        withCode(plain) { start, address in
          #expect(MachineCode.stubSlot(at: start, available: 16) == address + 6 + 0x2FE2)
        }
        let secured: [UInt8] =
          [0xF3, 0x0F, 0x1E, 0xFA, 0xF2, 0xFF, 0x25] + Self.rel32(-0x1000) + [0x0F, 0x1F, 0x44, 0]
        withCode(secured) { start, address in
          #expect(MachineCode.stubSlot(at: start, available: 16) == address + 11 - 0x1000)
          #expect(MachineCode.stubSlot(at: start, available: 10) == nil)  // cut inside the jump
        }
        // A jump through a register, a call through the slot, a direct jump: not stubs.
        for bytes: [UInt8] in [
          [0xFF, 0xE0], [0xFF, 0x15] + Self.rel32(0x10), [0xE9] + Self.rel32(0x10),
          [0xFF, 0x24, 0x25] + Self.rel32(0),
        ] {
          withCode(bytes) { start, _ in
            #expect(MachineCode.stubSlot(at: start, available: bytes.count) == nil)
          }
        }
      }
    }
  #endif
#endif
