// The cross-check needs `RemoteMirror` (x86_64 Linux: see RemoteMirror.swift). There it always runs
// and fails when the library cannot be loaded: it is never skipped.
#if os(Linux) && arch(x86_64)
  import RetainGraphRuntime
  import Foundation
  @testable import RetainGraph
  import Synchronization
  import Testing

  /// Where `swift_async_task_info_t` (SwiftRemoteMirrorTypes.h) keeps what is compared, on this
  /// toolchain (6.3.1, x86_64): `Error` (8), `Kind` and `EnqueuePriority` (u32), five byte flags
  /// `IsChildTask`, `IsFuture` (17), `IsGroupChildTask`, `IsAsyncLetTask`, `IsSynchronousStartTask`;
  /// `MaxPriority` (24); six byte flags from `IsCancelled` (28) to `IsEnqueued`; `HasThreadPort`,
  /// `ThreadPort`; `Id` (40), `RunJob` (48), `AllocatorSlabPtr` (56). The test first checks the id
  /// and the slab pointer are where this says, so a different layout fails loudly.
  enum AsyncTaskInfoLayout {
    static let isFuture = 17
    static let isCancelled = 28
    static let id = 40
    static let runJob = 48
    static let allocatorSlab = 56
  }

  /// Holds the jobs enqueued on it until told to run them: a task that prefers it has not started.
  final class HoldingExecutor: TaskExecutor, @unchecked Sendable {
    private let jobs = Mutex<[UnownedJob]>([])

    func enqueue(_ job: consuming ExecutorJob) {
      let unowned = UnownedJob(job)
      jobs.withLock { $0.append(unowned) }
    }

    func runAll() {
      while let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
        job.runSynchronously(on: asUnownedTaskExecutor())
      }
    }
  }

  @Suite("Tasks read from the runtime's layout agree with RemoteMirror")
  struct TaskRemoteMirrorTests {
    /// The task's id, first slab and cancellation as RemoteMirror reads them, and, for a task that has
    /// not started, the entry point it finds in the future's context prefix (`getRunJob`), against
    /// `TaskLayout`.
    private func compare(_ task: UnsafeRawPointer, notStarted: Bool) throws {
      let mirror = try RemoteMirror.shared.get()
      let info = try mirror.taskInfo(of: task).get()
      func word(_ offset: Int) -> UInt {
        info.withUnsafeBytes { $0.load(fromByteOffset: offset, as: UInt.self) }
      }
      let state = try #require(TaskLayout.state(of: task))
      let firstSlab = task.load(fromByteOffset: TaskLayout.firstSlabOffset, as: UInt.self)
      let id =
        UInt(task.load(fromByteOffset: 36, as: UInt32.self))
        | UInt(task.load(fromByteOffset: 144, as: UInt32.self)) << 32
      let layout = AsyncTaskInfoLayout.self
      try #require(
        word(layout.allocatorSlab) == firstSlab && word(layout.id) == id,
        "swift_async_task_info_t does not have the task's slab \(firstSlab) and id \(id) where expected: \(info.prefix(80))"
      )
      #expect(info[layout.isFuture] == 1)
      #expect((info[layout.isCancelled] != 0) == state.isCancelled)
      if notStarted {
        // RemoteMirror looks through the future adapter to the prefix's entry point.
        let entry = try #require(state.operation?.function)
        #expect(word(layout.runJob) == UInt(bitPattern: entry))
      }
    }

    // Needs the binary readers: it checks names read from the symbol tables (BinaryReadersTests

    // checks the names without them).
    #if BinaryReaders
      @Test func notStartedTaskAgrees() async throws {
        let executor = HoldingExecutor()
        let captured = TaskPoller()
        let task = Task(executorPreference: executor) { captured.ticks }
        let pointer = unsafeBitCast(task, to: UnsafeRawPointer.self)
        try compare(pointer, notStarted: true)
        let state = try #require(TaskLayout.state(of: pointer))
        let (_, name) = try #require(state.operation.flatMap(ClosureLayout.unwrappingThunks))
        #expect(name?.hasPrefix("closure #1 in ") == true, "\(name ?? "no name")")
        executor.runAll()
        _ = await task.value
      }
    #endif

    @Test func suspendedTaskAgrees() async throws {
      let (poller, stop) = await TaskPoller.make()
      defer { stop() }
      let task = try #require((poller as? TaskPoller)?.task)
      try compare(unsafeBitCast(task, to: UnsafeRawPointer.self), notStarted: false)
      task.cancel()
      await task.value
      try compare(unsafeBitCast(task, to: UnsafeRawPointer.self), notStarted: false)
    }
  }
#endif
