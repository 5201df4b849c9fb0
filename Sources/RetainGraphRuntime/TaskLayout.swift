/// What the walk reads of one task (an `AsyncTask` of the concurrency runtime).
package struct TaskState {
  /// The task finished: it holds nothing any more (its closure context was released).
  package var isComplete: Bool
  package var isCancelled: Bool
  /// Running on a thread right now: its frames are changing and are not read.
  package var isRunning: Bool
  /// Suspended, waiting for something (a dependency record is set).
  package var isSuspended: Bool
  /// A child task (`async let`, a task group's task).
  package var isChild: Bool
  package var isGroupChild: Bool
  package var isAsyncLet: Bool
  /// The function the task runs and the context it was started with, as stored in the task's
  /// initial async context prefix; nil when the task finished or is running (a finishing task
  /// releases the context before it is flagged complete, so a running task's is not read).
  package var operation: ThickFunction?
}

/// Reads tasks from the Swift concurrency runtime's own layout (README.md in this target, "Tasks").
/// Every read is guarded: the runtime must export its debug symbols with the layout version and
/// task size this code was written for, and each task's context prefix must agree with its future
/// fragment, or nothing is read.
package enum TaskLayout {
  /// The concurrency runtime's debug variables, read once.
  package struct Runtime {
    /// `_swift_concurrency_debug_asyncTaskMetadata`: every task's isa.
    package var taskMetadata: UInt
    /// `_swift_concurrency_debug_asyncTaskSlabMetadata`: the first word of every allocator slab.
    package var slabMetadata: UInt
    /// `_swift_concurrency_debug_asyncTaskSize`: `sizeof(AsyncTask)`, where the fragments start.
    package var taskSize: Int
  }

  /// The layout version (`_swift_concurrency_debug_internal_layout_version`) and task size this
  /// reader was checked against (Swift 6.3.1, Linux x86_64).
  package static let expectedLayoutVersion: UInt32 = 1
  package static let expectedTaskSize = 208

  // Offsets in an AsyncTask (include/swift/RemoteInspection/RuntimeInternals.h, 64-bit).
  package static let jobFlagsOffset = 32  // Job::Flags, u32
  package static let statusFlagsOffset = 96  // PrivateStorage.Status.Flags[0], u32
  package static let firstSlabOffset = 120  // PrivateStorage.Allocator.FirstSlab
  package static let statusRecordOffset = 104  // PrivateStorage.Status.Record: the innermost status record
  package static let runJobOffset = 56  // Job::RunJob: a suspended task's resume function
  package static let resumeContextOffset = 64  // AsyncTask::ResumeContext: its innermost async context
  // JobFlags (include/swift/ABI/MetadataValues.h).
  package static let isChildTaskFlag: UInt32 = 1 << 24
  package static let isFutureFlag: UInt32 = 1 << 25
  package static let isGroupChildTaskFlag: UInt32 = 1 << 26
  package static let isAsyncLetTaskFlag: UInt32 = 1 << 28
  /// Bits this reader does not know, which would add fragments or records it cannot place.
  package static let unknownTaskFlags: UInt32 = 0xC800_0000
  // ActiveTaskStatus flags.
  package static let isCancelledStatus: UInt32 = 0x100
  package static let isRunningStatus: UInt32 = 0x800
  package static let isCompleteStatus: UInt32 = 0x2000
  package static let hasTaskDependencyStatus: UInt32 = 0x4000
  // Fragment sizes: ChildFragment (Parent, NextChild), GroupChildFragment (Group), FutureFragment
  // (waitQueue, resultType, error), FutureAsyncContextPrefix (indirectResult, asyncEntryPoint,
  // closureContext, errorResult); AsyncContext is aligned to 16 (MaximumAlignment).
  package static let childFragmentSize = 16
  package static let groupChildFragmentSize = 8
  package static let futureFragmentSize = 24
  package static let futurePrefixSize = 32
  package static let contextAlignment = 16
  // StackAllocator::Slab: Metadata, Next, Capacity u32, CurrentOffset u32; allocations start at
  // the header size rounded up to MaximumAlignment.
  package static let slabHeaderSize = 32
  package static let maximumSlabs = 1024
  package static let maximumFrames = 100_000
  // TaskStatusRecord { Flags (kind in bits 0-7), Parent }; ChildTaskStatusRecord (an async let's)
  // and TaskGroupTaskStatusRecord then hold FirstChild; children are linked through their
  // ChildFragment's NextChild (include/swift/ABI/TaskStatus.h, MetadataValues.h).
  package static let childTaskRecord: UInt = 1
  package static let taskGroupRecord: UInt = 2
  package static let maximumRecords = 4096
  package static let maximumChildren = 100_000
  package static let maximumSlabCapacity = 1 << 24

  /// The runtime's debug variables, or nil when the concurrency runtime is not loaded, does not
  /// export them, or reports a layout other than the one this reader was checked against.
  package static let runtime: Runtime? = {
    #if canImport(ObjectiveC) || !arch(x86_64) && !arch(arm64)
      return nil  // other platforms' task layouts are not verified
    #else
      guard let version = RuntimeSymbols.address(of: "_swift_concurrency_debug_internal_layout_version"),
        let size = RuntimeSymbols.address(of: "_swift_concurrency_debug_asyncTaskSize"),
        let metadata = RuntimeSymbols.address(of: "_swift_concurrency_debug_asyncTaskMetadata"),
        let slab = RuntimeSymbols.address(of: "_swift_concurrency_debug_asyncTaskSlabMetadata")
      else { return nil }
      guard version.load(as: UInt32.self) == expectedLayoutVersion,
        size.load(as: Int.self) == expectedTaskSize
      else { return nil }
      return Runtime(
        taskMetadata: metadata.load(as: UInt.self), slabMetadata: slab.load(as: UInt.self),
        taskSize: size.load(as: Int.self))
    #endif
  }()

  /// Why tasks cannot be read in this process, for a note; nil when they can.
  package static var unavailableReason: String? {
    guard runtime == nil else { return nil }
    if RuntimeSymbols.address(of: "_swift_concurrency_debug_asyncTaskMetadata") == nil {
      return "the concurrency runtime's debug symbols are not loaded"
    }
    return "the concurrency runtime's task layout is not the one this version of RetainGraph reads"
  }

  /// Whether the heap object at `object` is a task: its isa is the runtime's task metadata.
  package static func isTask(_ object: UnsafeRawPointer) -> Bool {
    guard let runtime, UInt(bitPattern: object) % 8 == 0 else { return false }
    return object.load(as: UInt.self) == runtime.taskMetadata
  }

  /// The state of the task at `task`, or nil when its layout is not recognised (the caller notes
  /// it). The task must be kept alive by the caller.
  package static func state(of task: UnsafeRawPointer) -> TaskState? {
    guard let runtime, UInt(bitPattern: task) % 8 == 0, task.load(as: UInt.self) == runtime.taskMetadata
    else {
      return nil
    }
    let flags = task.load(fromByteOffset: jobFlagsOffset, as: UInt32.self)
    let status = task.load(fromByteOffset: statusFlagsOffset, as: UInt32.self)
    // Only futures (every `Task`, `async let` and task group task) carry a prefix this reader
    // can check; a job kind other than Task (0) or flags it does not know: not read.
    guard flags & 0xFF == 0, flags & isFutureFlag != 0, flags & unknownTaskFlags == 0 else { return nil }
    var state = TaskState(
      isComplete: status & isCompleteStatus != 0, isCancelled: status & isCancelledStatus != 0,
      isRunning: status & isRunningStatus != 0, isSuspended: status & hasTaskDependencyStatus != 0,
      isChild: flags & isChildTaskFlag != 0,
      isGroupChild: flags & isGroupChildTaskFlag != 0, isAsyncLet: flags & isAsyncLetTaskFlag != 0,
      operation: nil)
    var offset = runtime.taskSize
    if state.isChild { offset += childFragmentSize }
    if state.isGroupChild { offset += groupChildFragmentSize }
    let fragment = task + offset
    // FutureFragment: the wait queue's low two bits are the future's status (0 = executing).
    let waitQueue = fragment.load(as: UInt.self)
    if waitQueue & 0x3 != 0 { state.isComplete = true }
    guard let resultType = fragment.load(fromByteOffset: 8, as: UnsafeRawPointer?.self) else { return nil }
    let resultAlignment = Metadata.alignment(of: Metadata.type(at: resultType))
    let resultSize = Metadata.size(of: Metadata.type(at: resultType))
    let resultOffset = (offset + futureFragmentSize + resultAlignment - 1) / resultAlignment * resultAlignment
    let headerEnd = resultOffset + resultSize + futurePrefixSize
    let headerSize = (headerEnd + contextAlignment - 1) / contextAlignment * contextAlignment
    let prefix = task + (headerSize - futurePrefixSize)
    // The check that the layout is the one described: the prefix's indirect result is the future
    // fragment's result storage, found independently above.
    guard prefix.load(as: UInt.self) == UInt(bitPattern: task + resultOffset) else { return nil }
    if !state.isComplete && !state.isRunning {
      let entry = prefix.load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
      let context = prefix.load(fromByteOffset: 16, as: UnsafeRawPointer?.self)
      state.operation = ThickFunction(function: entry, context: context)
    }
    return state
  }

  /// The words of a suspended task's frames: the async contexts its allocator holds (each slab's
  /// allocations in use, from the first slab). Calls `body` with each word's address and value and
  /// stops when it returns false. Nothing is read from a task that is running or finished, or
  /// whose slabs do not carry the runtime's slab metadata; the words themselves are never
  /// dereferenced here.
  package static func forEachFrameWord(ofTask task: UnsafeRawPointer, _ body: (UInt, UInt) -> Bool) {
    for range in slabsInUse(ofTask: task) {
      let words = UnsafePointer<UInt>(bitPattern: range.lowerBound).unsafelyUnwrapped
      for index in 0..<(range.count / 8) where !body(range.lowerBound + UInt(index * 8), words[index]) {
        return
      }
    }
  }

  /// The bytes in use of a suspended task's allocator slabs; empty when the task is running,
  /// finished or not recognised, or a slab does not carry the slab metadata.
  private static func slabsInUse(ofTask task: UnsafeRawPointer) -> [Range<UInt>] {
    guard let runtime, let state = state(of: task), !state.isComplete, !state.isRunning else { return [] }
    var ranges: [Range<UInt>] = []
    var slab = task.load(fromByteOffset: firstSlabOffset, as: UnsafeRawPointer?.self)
    // A slab's link is read from a task another thread may have been changing when the process
    // forked: a word that is not a slab's address (misaligned) ends the list, not the process.
    while let current = slab, UInt(bitPattern: current) % 8 == 0, ranges.count < maximumSlabs {
      guard current.load(as: UInt.self) == runtime.slabMetadata else { return ranges }
      let capacity = Int(current.load(fromByteOffset: 16, as: UInt32.self))
      let used = Int(current.load(fromByteOffset: 20, as: UInt32.self))
      guard capacity <= maximumSlabCapacity, used <= capacity else { return ranges }
      let start = UInt(bitPattern: current + slabHeaderSize)
      ranges.append(start..<(start + UInt(used / 8 * 8)))
      slab = current.load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
    }
    return ranges
  }

  /// The child tasks of a suspended task, with whether each is a task group's (otherwise an
  /// `async let`'s): the children its status records list (`ChildTaskStatusRecord`,
  /// `TaskGroupTaskStatusRecord`), each record read only when it lies in the task's slabs in use
  /// (an async let's storage and a group are allocated in the parent's frames), each child only
  /// when its isa is the task metadata and its flags say it is a child task.
  package static func childTasks(ofTask task: UnsafeRawPointer) -> [(task: UnsafeRawPointer, inGroup: Bool)] {
    let ranges = slabsInUse(ofTask: task)
    guard !ranges.isEmpty else { return [] }
    func inSlabs(_ address: UInt) -> Bool {
      address % 8 == 0 && ranges.contains { $0.contains(address) && $0.contains(address + 23) }
    }
    var children: [(task: UnsafeRawPointer, inGroup: Bool)] = []
    var seen: Set<UInt> = []
    var record = task.load(fromByteOffset: statusRecordOffset, as: UInt.self)
    var records = 0
    while inSlabs(record), records < maximumRecords, let current = UnsafeRawPointer(bitPattern: record) {
      records += 1
      let kind = current.load(as: UInt.self) & 0xFF
      if kind == childTaskRecord || kind == taskGroupRecord {
        var child = current.load(fromByteOffset: 16, as: UnsafeRawPointer?.self)
        while let next = child, UInt(bitPattern: next) % 8 == 0, isTask(next),
          let state = state(of: next), state.isChild, children.count < maximumChildren,
          seen.insert(UInt(bitPattern: next)).inserted
        {
          children.append((next, kind == taskGroupRecord))
          child = next.load(
            fromByteOffset: (runtime?.taskSize ?? expectedTaskSize) + 8, as: UnsafeRawPointer?.self)
        }
      }
      record = current.load(fromByteOffset: 8, as: UInt.self)
    }
    return children
  }

  /// A suspended task's frames, innermost first: each async context with the partial function that
  /// resumes it. They are found from the task's resume context (`AsyncTask::ResumeContext`, resumed
  /// by `Job::RunJob`) through each context's parent (first word) and the parent's resume function
  /// (second word); a context is read only when it lies in the task's slabs in use. Empty when the
  /// task is running, finished or not recognised.
  package static func frames(ofTask task: UnsafeRawPointer) -> [(context: UInt, resume: UnsafeRawPointer)] {
    let ranges = slabsInUse(ofTask: task)
    guard !ranges.isEmpty else { return [] }
    func inSlabs(_ address: UInt) -> Bool {
      address % 8 == 0 && ranges.contains { $0.contains(address) && $0.contains(address + 15) }
    }
    var frames: [(context: UInt, resume: UnsafeRawPointer)] = []
    var context = task.load(fromByteOffset: resumeContextOffset, as: UInt.self)
    var resume = task.load(fromByteOffset: runJobOffset, as: UInt.self)
    while inSlabs(context), frames.count < maximumFrames, let function = UnsafeRawPointer(bitPattern: resume),
      let frame = UnsafeRawPointer(bitPattern: context)
    {
      frames.append((context, function))
      resume = frame.load(fromByteOffset: 8, as: UInt.self)
      context = frame.load(as: UInt.self)
    }
    return frames
  }
}
