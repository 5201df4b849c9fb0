// The readers are built with the package trait BinaryReaders only (Package.swift).
#if BinaryReaders
  import RetainGraphAsyncFrames
  import Testing

  /// The frame liveness reader (`FrameLiveness`) on machine code assembled by hand (encodings from
  /// the Intel SDM, checked once against `objdump -D` by hand), each with a frame of 64 bytes: which
  /// words it finds dead. Offsets below 16 (the context's parent and resume parent) are never
  /// reported. The scenarios in `TaskTests` check the same reader against the runtime.
  @Suite("Frame liveness from machine code")
  struct FrameLivenessTests {
    static let size = 64
    /// Every word of the frame but the header.
    static let all: Set<Int> = [16, 24, 32, 40, 48, 56]

    static func dead(
      _ code: [UInt8], entry: FrameLiveness.Entry = .ownContext, variables: Set<Int>? = nil
    ) -> Set<Int> {
      code.withUnsafeBytes { bytes in
        FrameLiveness.deadOffsets(
          ofCode: bytes.baseAddress.unsafelyUnwrapped, size: code.count, entry: entry, contextSize: size,
          variables: variables)
      }
    }

    // mov [r14+0x20], rax; mov rax, [r14+0x20]; movq [r14+0x20], 0; mov [r14+0x28], rax
    static let store20: [UInt8] = [0x49, 0x89, 0x46, 0x20]
    static let load20: [UInt8] = [0x49, 0x8B, 0x46, 0x20]
    static let storeZero20: [UInt8] = [0x49, 0xC7, 0x46, 0x20, 0, 0, 0, 0]
    static let store28: [UInt8] = [0x49, 0x89, 0x46, 0x28]
    static let store18: [UInt8] = [0x49, 0x89, 0x46, 0x18]
    /// jmp [r14+8]: the frame's resume parent with the frame in r14, the return.
    static let returnToParent: [UInt8] = [0x41, 0xFF, 0x66, 0x08]
    /// jmp rel32 past the code: a tail call to a function that is not followed.
    static let tailCall: [UInt8] = [0xE9, 0x00, 0x10, 0x00, 0x00]

    /// A return frees the frame: every word not read first is dead, the one stored too.
    @Test func aReturnFreesTheFrame() {
      #expect(Self.dead(Self.store20 + Self.returnToParent) == Self.all)
      #expect(Self.dead(Self.load20 + Self.store20 + Self.returnToParent) == Self.all.subtracting([32]))
    }

    /// Leaving for code not followed: only the words stored first are dead.
    @Test func aTailCallLeavesUnseenWordsLive() {
      #expect(Self.dead(Self.store20 + Self.tailCall) == [32])
      #expect(Self.dead(Self.load20 + Self.store20 + Self.tailCall) == [])
    }

    /// Both sides of a branch: + 0x20 is read first on one of them (live), + 0x28 stored first on both.
    @Test func aWordReadFirstOnOnePathIsLive() {
      let code: [UInt8] =
        [0x84, 0xC0, 0x74, 0x04]  // test al, al; je +4 (past the load)
        + Self.load20 + Self.storeZero20 + Self.store28 + Self.tailCall
      #expect(Self.dead(code) == [40])
    }

    /// A trap ends the path with nothing more read.
    @Test func aTrapReadsNothingMore() {
      #expect(Self.dead(Self.load20 + [0x0F, 0x0B]) == Self.all.subtracting([32]))
    }

    /// An await-resume function gets its callee's context in r14 and reads the frame from its first
    /// word: mov rax, [r14]; mov [rax+0x20], rcx; mov r14, rax; then the return.
    @Test func anAwaitResumeReadsTheFrameFromItsCalleesContext() {
      let code: [UInt8] = [0x49, 0x8B, 0x06, 0x48, 0x89, 0x48, 0x20, 0x49, 0x89, 0xC6] + Self.returnToParent
      #expect(Self.dead(code, entry: .calleeContext) == Self.all)
      // The same code read as a suspension resume: r14 is the frame, rax is not, nothing is known.
      #expect(Self.dead(code, entry: .ownContext) == [])
    }

    /// A callee given F + 0x20 may read every word from there to the end of the frame, never below:
    /// lea rdi, [r14+0x20]; call (not a named function); stores to + 0x18 and + 0x28; the return. In
    /// an unoptimised frame whose next variable starts at + 0x28, it reaches + 0x20 only.
    @Test func aCalleeGivenAFrameAddressReachesWhatLiesAbove() {
      let code: [UInt8] =
        [0x49, 0x8D, 0x7E, 0x20, 0xE8, 0x00, 0x10, 0x00, 0x00] + Self.store18 + Self.store28
        + Self.returnToParent
      #expect(Self.dead(code) == [16, 24])
      #expect(Self.dead(code, variables: [24, 40]) == [16, 24, 40, 48, 56])
    }

    /// Anything not followed stops the path with what it has not seen live: an unknown opcode
    /// (`syscall`), the frame's address stored where it is not tracked (mov [rax], r14).
    @Test func whatIsNotFollowedStopsThePath() {
      #expect(Self.dead(Self.store20 + [0x0F, 0x05] + Self.returnToParent) == [32])
      #expect(Self.dead([0x4C, 0x89, 0x30] + Self.store20 + Self.returnToParent) == [])
    }
  }
#endif
