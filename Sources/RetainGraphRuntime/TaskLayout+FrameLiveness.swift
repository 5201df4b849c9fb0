// The one file of RetainGraphRuntime that asks frame liveness (RetainGraphAsyncFrames) and the
// debug information which words of a suspended task's frames are dead: the seam a platform without
// those readers builds without (the package trait `BinaryReaders` off). There no word is known
// dead, so every word of a frame that equals an object counts as a reference (a conservative
// answer, never "no reference"), and the walk notes it (`GraphNote.Kind.conservativeFrames`).

#if BinaryReaders
  internal import RetainGraphAsyncFrames
#endif

extension TaskLayout {
  /// Whether this build reads which words of suspended frames are dead (the package trait
  /// `BinaryReaders`, on by default).
  package static var readsFrameLiveness: Bool {
    #if BinaryReaders
      return true
    #else
      return false
    #endif
  }

  #if BinaryReaders
    /// The addresses, in a suspended task's frames, of the words that the debug information says
    /// belong to variables whose lifetime had ended where their function was suspended (README.md in
    /// this target, "Suspended frames"): a word there is a stale bit pattern, not a reference. Empty
    /// without debug information.
    package static func deadFrameSlots(ofTask task: UnsafeRawPointer) -> Set<UInt> {
      var dead: Set<UInt> = []
      for (index, frame) in frames(ofTask: task).enumerated() {
        for offset in SymbolNames.deadFrameOffsets(resumingAt: frame.resume) {
          dead.insert(frame.context + UInt(offset))
        }
        // What the resume function's machine code says (FrameLiveness, README "Frame liveness").
        for offset in FrameLiveness.deadOffsets(
          context: frame.context, resume: frame.resume, innermost: index == 0)
        {
          dead.insert(frame.context + UInt(offset))
        }
      }
      return dead
    }
  #else
    /// No word is known dead in this build (see `readsFrameLiveness`).
    package static func deadFrameSlots(ofTask task: UnsafeRawPointer) -> Set<UInt> { [] }
  #endif
}
