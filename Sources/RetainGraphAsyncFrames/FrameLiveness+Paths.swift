// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  internal import RetainGraphMachineCode

  // The liveness reader's abstract state: values, one path's registers, stack slots and frame words,
  // how a path ends, where a memory operand points.
  extension FrameLiveness {
    /// An abstract value of a register, a stack slot or a frame word during the liveness reading.
    enum Value: Equatable {
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
    struct PathState {
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
    enum PathEnd {
      /// Stopped, or left for code not followed: the words it stored first are dead, the others live.
      case open
      /// Returned to the frame's caller (which frees it) or trapped: every word it did not read first
      /// is dead.
      case freed
    }

    /// Where a memory operand points.
    enum Location {
      case frame(Int)
      case stack(Int)
      case calleeContext(Int)
      case newContext(Int)
      /// Memory that is not the frame (globals, thread-local storage, objects, other contexts).
      case elsewhere
      /// Possibly the frame at an offset not known: a read there stops the path.
      case unknown
    }
  }
#endif
