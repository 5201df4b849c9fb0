internal import CRetainGraphCensus
internal import Foundation
internal import RetainGraph
internal import RetainGraphRuntime

/// A holder the runtime keeps outside the objects the census records: a running task, or a block
/// that Dispatch keeps for queued work (or a `DispatchWorkItem`'s). The search starts a walk at each.
struct QueuedHolder {
  /// What it is, as reports name it: `running task started in FireAndForget.start() (closure #1 in
  /// FireAndForget.start())`, `block queued on DispatchQueue(label: "work") from closure #1 in
  /// DelayedWork.start()`.
  var name: String
  /// The closure it runs, as a function value holding its context (retained): the walk reads the
  /// context's captures.
  var closure: Any
}

/// Snapshots the census's task and block records (queued.c) as holders.
enum QueuedHolders {
  /// Which handler of a dispatch source a block is, for its `RGC_BLOCK_…` kind: `event handler`,
  /// `cancel handler`, `registration handler`; nil for any other kind.
  static func sourceHandlerRole(_ kind: Int32) -> String? {
    switch kind {
    case RGC_BLOCK_SOURCE_EVENT_HANDLER: "event handler"
    case RGC_BLOCK_SOURCE_CANCEL_HANDLER: "cancel handler"
    case RGC_BLOCK_SOURCE_REGISTRATION_HANDLER: "registration handler"
    default: nil
    }
  }

  /// A thick function's two words, to make a function value the walk can read from a known
  /// function and a retained context.
  /// The live tasks and Swift blocks the census recorded, each with the closure it holds.
  static func snapshot() -> [QueuedHolder] {
    rgc_lock_queued()
    defer { rgc_unlock_queued() }
    return tasks() + blocks()
  }

  // MARK: - Tasks

  /// With the queued lock held.
  private static func tasks() -> [QueuedHolder] {
    let count = rgc_collect_tasks(nil, 0)
    guard count > 0 else { return [] }
    // `allocate` is malloc, not swift_allocObject.
    let buffer = UnsafeMutablePointer<rgc_task_record>.allocate(capacity: count)
    defer { buffer.deallocate() }
    let records = UnsafeBufferPointer(start: buffer, count: min(count, rgc_collect_tasks(buffer, count)))
    var holders: [QueuedHolder] = []
    for record in records {
      // The context is alive while the task runs (sweeping just forgot the finished ones); the
      // record's unowned count keeps its memory.
      guard let context = CensusRuntime.object(at: record.context) else { continue }
      // The entry was given to swift_task_create as the task's async function pointer.
      let entry = record.entry
      let function = CensusRuntime.function(ofAsyncFunctionPointer: entry)
      let (closureName, closure) = taskClosure(entryFunction: function, context: record.context)
      let frames = (0..<Int(record.frameCount)).compactMap { record.frames?[$0].map { UnsafeRawPointer($0) } }
      var name = "running task"
      if let starter = starter(frames, closure: closure ?? entry) { name += " started in \(starter)" }
      if let closureName { name += " (\(closureName))" }
      holders.append(
        QueuedHolder(name: name, closure: CensusRuntime.closure(function: function, context: context)))
    }
    return holders
  }

  /// The closure a task runs: its entry function's name, or, when the entry is a thunk (a
  /// `Task { }` closure is passed reabstracted), the async function its context captures, found by
  /// the async function pointer symbol a word of the context equals; with that word (nil when the
  /// name is the entry's).
  private static func taskClosure(
    entryFunction: UnsafeRawPointer, context: UnsafeRawPointer
  ) -> (name: String?, pointer: UnsafeRawPointer?) {
    let entryName = CensusRuntime.functionName(containing: entryFunction).map(simplified)
    guard entryName == nil || entryName?.contains("thunk") == true else { return (entryName, nil) }
    let size = min(rgc_allocation_size(context), 64 * 8)
    for word in CensusRuntime.words(at: context, count: size / 8).dropFirst(2) {
      guard word > 4096, let pointer = UnsafeRawPointer(bitPattern: word),
        let function = CensusRuntime.asyncFunction(pointedToBy: pointer),
        let name = CensusRuntime.functionName(containing: function).map(simplified), !name.contains("thunk")
      else { continue }
      return (name, pointer)
    }
    return (entryName, nil)
  }

  /// The function that created the task: the first frame above the interposer that is not the
  /// concurrency library's own (`Task.init`, `Task.detached`, `TaskGroup.addTask`, emitted into the
  /// caller's module, maybe specialised). `closure` is the async function pointer of the closure the
  /// task runs: a frame in a merged body (an optimised build keeps one body for functions whose code
  /// differs only in constants, named after one of them) is named after the function that passed it.
  private static func starter(_ frames: [UnsafeRawPointer], closure: UnsafeRawPointer) -> String? {
    for frame in frames {
      // A return address points just past the call.
      guard let name = CensusRuntime.functionName(containing: frame - 1) else { continue }
      // The library's, however they are spelled; not a user's closure whose signature names a
      // `TaskGroup`.
      var function = Substring(withoutCompilerPrefixes(name))
      if function.hasPrefix("static ") { function = function.dropFirst("static ".count) }
      if function.hasPrefix("Swift.Task") || function.hasPrefix("(extension in Swift):Swift.Task")
        || name.contains("thunk") || name.hasPrefix("swift_task")
      {
        continue
      }
      if let callers = CensusRuntime.mergedCallers(ofFunctionContaining: frame - 1), !callers.isEmpty {
        let passing = callers.filter { $0.loads.contains(UInt(bitPattern: closure)) }
        // Not told apart: every function merged there is named.
        return (passing.count == 1 ? passing : callers).map { simplified($0.name) }.sorted()
          .joined(separator: " or ")
      }
      return simplified(name)
    }
    return nil
  }

  // MARK: - Blocks

  /// A recorded block's words, copied while the queued lock holds it alive.
  private struct BlockCopy {
    var address: UInt
    var words: [UInt]
    var queue: String?
    /// What Dispatch keeps it as (`RGC_BLOCK_…`; 0: only queued, or nothing known).
    var kind: Int32
    var isWorkItem: Bool { kind == RGC_BLOCK_WORK_ITEM }
    /// A dispatch source's handler: which one.
    var sourceHandler: String? { QueuedHolders.sourceHandlerRole(kind) }
    /// Whether Dispatch keeps it: queued, a work item's, or a source's handler.
    var isKept: Bool { queue != nil || kind != 0 }
  }

  /// With the queued lock held: the Swift blocks (a Swift closure converted with
  /// `@convention(block)`) among the recorded ones, each named by its queue and its closure.
  private static func blocks() -> [QueuedHolder] {
    let count = rgc_collect_blocks(nil, 0)
    guard count > 0 else { return [] }
    let buffer = UnsafeMutablePointer<rgc_block_record>.allocate(capacity: count)
    defer { buffer.deallocate() }
    let records = UnsafeBufferPointer(start: buffer, count: min(count, rgc_collect_blocks(buffer, count)))
    var copies: [BlockCopy] = records.map { record in
      let wordCount = min(Int(record.size) / 8, 64)
      let words = CensusRuntime.words(at: record.block, count: wordCount)
      return BlockCopy(
        address: UInt(bitPattern: record.block), words: words,
        queue: record.queue.map { String(cString: $0) }, kind: record.workItem)
    }
    // A DispatchWorkItem queues libdispatch's own block, which holds the Swift block: a block held
    // by a queued block is queued too (and a block held by a source's handler is that handler).
    let indexByAddress = Dictionary(
      copies.indices.map { (copies[$0].address, $0) }, uniquingKeysWith: { first, _ in first })
    for holder in copies.indices where copies[holder].isKept {
      for word in copies[holder].words.dropFirst(4) {
        guard let held = indexByAddress[word], held != holder else { continue }
        if copies[held].queue == nil { copies[held].queue = copies[holder].queue }
        let kind = copies[holder].kind
        if kind != 0 && (copies[held].kind == 0 || copies[holder].sourceHandler != nil) {
          copies[held].kind = kind
        }
      }
    }
    var holders: [QueuedHolder] = []
    for copy in copies where copy.words.count >= 6 && copy.isKept {
      // A Swift block's invoke function is the reabstraction thunk to `@convention(block)`; its
      // captured storage, after the 32-byte header, is the Swift closure: function, context.
      guard let invoke = UnsafeRawPointer(bitPattern: copy.words[2]),
        let invokeName = CensusRuntime.functionName(containing: invoke),
        invokeName.contains("@convention(block)"),
        let function = UnsafeRawPointer(bitPattern: copy.words[4])
      else { continue }
      let closureName = CensusRuntime.functionName(containing: function).map(simplified) ?? "a closure"
      // The block holds its context (retained by its copy helper) while the lock keeps it.
      guard let contextAddress = UnsafeRawPointer(bitPattern: copy.words[5]),
        let context = CensusRuntime.object(at: contextAddress)
      else { continue }
      var name: String
      if let handler = copy.sourceHandler {
        name = "DispatchSource \(handler) from \(closureName)"
      } else if let queue = copy.queue, !copy.isWorkItem {
        name = "block queued on \(queueName(queue)) from \(closureName)"
      } else if let queue = copy.queue {
        name = "DispatchWorkItem block (queued on \(queueName(queue))) from \(closureName)"
      } else {
        name = "DispatchWorkItem block from \(closureName)"
      }
      holders.append(
        QueuedHolder(name: name, closure: CensusRuntime.closure(function: function, context: context)))
    }
    return holders
  }

  /// `com.apple.root.default-qos` → `DispatchQueue.global()`; `work` → `DispatchQueue(label: "work")`.
  static func queueName(_ label: String) -> String {
    if label == "com.apple.main-thread" { return "DispatchQueue.main" }
    let root = "com.apple.root."
    if label.hasPrefix(root) {
      let qos = label.dropFirst(root.count).replacingOccurrences(of: "-overcommit", with: "")
      switch qos {
      case "default-qos": return "DispatchQueue.global()"
      case "user-interactive-qos": return "DispatchQueue.global(qos: .userInteractive)"
      case "user-initiated-qos": return "DispatchQueue.global(qos: .userInitiated)"
      case "utility-qos": return "DispatchQueue.global(qos: .utility)"
      case "background-qos": return "DispatchQueue.global(qos: .background)"
      default: break
      }
    }
    return "DispatchQueue(label: \"\(label)\")"
  }

  /// `partial apply for closure #1 in App.DelayedWork.start() -> ()` → `closure #1 in
  /// DelayedWork.start()`.
  private static func simplified(_ name: String) -> String {
    CensusNames.readableFunctionName(withoutCompilerPrefixes(name))
  }

  /// The function a compiler-made variant belongs to: `(1) suspend resume partial function for
  /// function signature specialization <Arg[0] = Dead> of App.Feed.start() async -> ()` →
  /// `App.Feed.start() async -> ()` (an async function's frames are its partial functions; an
  /// optimised build specialises and merges).
  static func withoutCompilerPrefixes(_ name: String) -> String {
    var text = Substring(name)
    var changed = true
    while changed {
      changed = false
      // `(1) suspend resume partial function for `, `(2) await resume partial function for `.
      if text.first == "(", let close = text.firstIndex(of: ")"),
        text[text.index(after: text.startIndex)..<close].allSatisfy(\.isNumber),
        let marker = text.range(of: " partial function for "),
        !text[text.index(after: close)..<marker.lowerBound].contains("(")
      {
        text = text[marker.upperBound...]
        changed = true
      }
      for prefix in ["partial apply for ", "specialized ", "merged "] where text.hasPrefix(prefix) {
        text = text.dropFirst(prefix.count)
        changed = true
      }
      // `generic specialization <…> of `, `function signature specialization <…> of `.
      for prefix in ["generic specialization <", "function signature specialization <"]
      where text.hasPrefix(prefix) {
        var depth = 0
        var index = text.index(text.startIndex, offsetBy: prefix.count - 1)
        while index < text.endIndex {
          if text[index] == "<" { depth += 1 } else if text[index] == ">" { depth -= 1 }
          index = text.index(after: index)
          if depth == 0 { break }
        }
        let rest = text[index...]
        guard rest.hasPrefix(" of ") else { break }
        text = rest.dropFirst(4)
        changed = true
      }
    }
    return String(text)
  }
}
