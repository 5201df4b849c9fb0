internal import Foundation
internal import RetainGraphRuntime
internal import RetainGraphSupport
internal import Synchronization

/// What the heap census (the `RetainGraphCensus` product) offers the rest of the package once it is
/// started. The testing assertions reach the census only through this hook, so that they never make
/// a test link the census's interposer.
package protocol CensusProvider: AnyObject, Sendable {
  /// Whether allocations are being recorded.
  var isRunning: Bool { get }
  /// The allocation number the next recorded allocation gets: a mark for "allocated since".
  func mark() -> UInt64
  /// Live objects allocated in one of `windows` (ranges of allocation numbers), counted by
  /// qualified type name, each with one live instance (the newest) to match allowances against and
  /// to explain.
  func liveCounts(allocatedIn windows: [Range<UInt64>]) -> [String: (count: Int, newest: AnyObject?)]
  /// Every live instance of `type` (subclasses and conforming classes too) the census saw.
  func liveObjects<T>(of type: T.Type) -> [AnyObject]
  /// Who holds `object`, searched in a forked child (a crash or a hang there ends only the child):
  /// its shortest retainer path, where it was allocated, or why the search gave no answer.
  func holders(of object: AnyObject) -> CensusHolderSearch
  /// ``holders(of:)`` waited for off the cooperative pool (the calling task suspends).
  nonisolated(nonsending) func searchHolders(of object: AnyObject) async -> CensusHolderSearch
  /// Runs `body` while no other census check runs (census checks of parallel tests take turns, in
  /// ``CensusCheckTurns``).
  func exclusively<R>(_ body: () throws -> R) rethrows -> R
  /// Calls `body` with the handler blocks the census saw set on the dispatch source `source` (a
  /// `dispatch_source_t`) and not since replaced (nor, for event and registration handlers,
  /// cancelled), each with what it is (`event handler`, `cancel handler`, `registration
  /// handler`), kept alive until `body` returns.
  func withDispatchSourceHandlers(
    of source: UnsafeRawPointer, _ body: ([(block: UnsafeRawPointer, role: String)]) -> Void)
}

/// What a census holder search found for a failure message.
package struct CensusHolderSearch: Sendable, Equatable {
  /// The shortest retainer path as one line (`ImageCache.shared.images[0]`); nil when the census
  /// sees no holder (or the search failed).
  package var holderPath: String?
  /// Where the object was allocated (`allocated in makeImage() ← …`), when call stacks are recorded.
  package var allocation: String?
  /// Why the search gave no answer, as a sentence (`the holder search crashed: …`); nil when it
  /// answered.
  package var failure: String?
  /// What the search found the object to be, as the walk names it: its type, or for a closure
  /// context the closure's function (`closure #1 in App.Feed.reload()`).
  package var targetName: String?

  package init(holderPath: String? = nil, allocation: String? = nil, failure: String? = nil) {
    self.holderPath = holderPath
    self.allocation = allocation
    self.failure = failure
  }
}

/// The slot the census fills when it starts.
package enum CensusRegistration {
  private static let slot = ForkSafeMutex<(any CensusProvider)?>(nil)

  /// Whether the current test runs in a census scope (the `.heapCensus` trait, `HeapCensus.run`):
  /// the census is process-wide, and a test that did not ask for it must not find it running
  /// because a parallel test did (its failure texts would then depend on that test's timing).
  @TaskLocal package static var isInScope = false

  /// The `HeapCensus.start()` calls made outside a scope and not yet stopped, oldest first, each
  /// with whether it asked for backtraces: such a start is for the whole process.
  private static let processWideStarts = ForkSafeMutex<[Bool]>([])

  /// Counts a start made outside a scope.
  /// - Parameter recordingBacktraces: whether it asked for allocation backtraces.
  package static func countProcessWideStart(recordingBacktraces: Bool) {
    processWideStarts.withLock { $0.append(recordingBacktraces) }
  }

  /// Counts a stop made outside a scope: it stops the latest start not yet stopped.
  /// - Returns: whether that start asked for backtraces; nil when every start was stopped.
  package static func countProcessWideStop() -> Bool? {
    processWideStarts.withLock { $0.popLast() }
  }

  /// The running census, or nil when none is linked and started for this test: by a scope around
  /// it, or by `HeapCensus.start()` for the whole process.
  package static var running: (any CensusProvider)? {
    guard let provider = slot.withLock({ $0 }), provider.isRunning,
      isInScope || processWideStarts.withLock({ !$0.isEmpty })
    else { return nil }
    return provider
  }

  /// Registers the census (idempotent).
  package static func register(_ provider: any CensusProvider) {
    slot.withLock { $0 = provider }
  }

  /// Whether the census was ever started in this process: it then keeps one `unowned` count on
  /// every object it recorded (its memory, not its life), until the object goes or the census
  /// forgets it.
  package static var mayHoldUnownedCounts: Bool { slot.withLock { $0 != nil } }

  /// How the census's counts name one closure's contexts: this, their metadata's address, and `)`.
  package static let closureContextPrefix = "(closure context "

  /// The failure text for a census-based check made without a census.
  package static func missingCensusMessage(for check: String) -> String {
    "\(check) counts every live object in the process, which needs the heap census: add "
      + "`import RetainGraphCensus` to the test target and run the test under the census with the "
      + "`.heapCensus` trait, `HeapCensus.run { … }`, or `HeapCensus.start()` before the check."
  }
}

/// Runtime reads the census needs, kept with the package's other raw reads.
package enum CensusRuntime {
  /// Makes, before a fork, what a walk in the forked child would otherwise make with the runtime's
  /// locks held by nobody in the child (the dispatch source class and its handle's offset).
  package static func prepareForFork() { _ = DispatchSourceLayout.source }

  /// The first `count` words at `address`, which the caller keeps readable (a recorded object or
  /// block whose memory the census holds).
  package static func words(at address: UnsafeRawPointer, count: Int) -> [UInt] {
    (0..<max(0, count)).map { address.load(fromByteOffset: $0 * 8, as: UInt.self) }
  }

  /// The function an async function pointer names: a relative offset (Int32) from the pointer to
  /// the function (ABI: `AsyncFunctionPointer`).
  package static func function(ofAsyncFunctionPointer pointer: UnsafeRawPointer) -> UnsafeRawPointer {
    pointer + Int(pointer.load(as: Int32.self))
  }

  /// A thick `() -> Void` made of a function and its context, for the walk to read the context's
  /// captures like any stored closure (the function is never called).
  package static func closure(function: UnsafeRawPointer, context: AnyObject) -> Any {
    unsafeBitCast(ThickParts(function: function, context: context), to: (() -> Void).self)
  }

  /// A thick function's two words.
  private struct ThickParts {
    var function: UnsafeRawPointer
    var context: AnyObject?
  }

  /// The object at `address`, retained, when it has not begun deinitialising; nil otherwise.
  /// `address` must be a heap object whose memory is still allocated (the census keeps it so).
  package static func object(at address: UnsafeRawPointer) -> AnyObject? {
    ReferenceLoader.retainedObject(at: address)
  }

  /// The metadata of a heap object: its first word on this platform.
  package static func metadata(ofObjectAt address: UnsafeRawPointer) -> UnsafeRawPointer? {
    address.load(as: UnsafeRawPointer?.self)
  }

  /// Whether a heap object's metadata is a class's (a closure context or box is not).
  package static func isClass(metadata: UnsafeRawPointer) -> Bool {
    MetadataKind(rawKind: metadata.load(as: UInt.self)) == .class
  }

  /// The qualified name of the type of the objects with this metadata: the class's name, or
  /// `(closure context)` / `(box)` for the runtime's own heap objects.
  package static func typeName(metadata: UnsafeRawPointer) -> String {
    switch MetadataKind(rawKind: metadata.load(as: UInt.self)) {
    case .class: return TypeNames.qualified(Metadata.type(at: metadata))
    case .heapLocalVariable: return "(closure context)"
    case .heapGenericLocalVariable: return "(box)"
    default: return "(heap object)"
    }
  }

  /// The short type name of a class whose instances' memory Core Foundation lays out (the walk
  /// does not read them by type); nil for any other class.
  package static func coreFoundationTypeName(metadata: UnsafeRawPointer) -> String? {
    guard isClass(metadata: metadata) else { return nil }
    let name = TypeNames.qualified(Metadata.type(at: metadata))
    return Metadata.isLaidOutByCoreFoundation(qualifiedName: name) ? TypeNames.short(name) : nil
  }

  /// Whether objects with this metadata are instances of the class `type` or of a subclass of it;
  /// nil when `type` is not a class (ask the object itself then).
  package static func isInstance(metadata: UnsafeRawPointer, of type: any Any.Type) -> Bool? {
    guard Metadata.kind(of: type) == .class else { return nil }
    guard isClass(metadata: metadata) else { return false }
    let wanted = Metadata.pointer(of: type)
    var candidate: (any Any.Type)? = Metadata.type(at: metadata)
    while let checked = candidate {
      if Metadata.pointer(of: checked) == wanted { return true }
      candidate = Metadata.superclass(of: checked)
    }
    return false
  }

  /// The address of an object's reference-count side table (what native weak references to it
  /// store), when it has one. RefCount.h: on 64-bit, the inline count word has its top two bits set
  /// and holds the side table's address shifted right by 3.
  package static func sideTable(ofObjectAt address: UInt) -> UInt? {
    guard let object = UnsafeRawPointer(bitPattern: address) else { return nil }
    let bits = object.load(fromByteOffset: 8, as: UInt.self)
    guard bits >> 62 == 0b11 else { return nil }
    return (bits & ~(UInt(0b11) << 62)) << 3
  }

  /// Whether a word of the `size`-byte heap object at `object`, after its two-word header
  /// (metadata, reference counts), satisfies `test`.
  package static func anyWord(
    ofObjectAt object: UnsafeRawPointer, size: Int, satisfies test: (UInt) -> Bool
  ) -> Bool {
    let count = size / 8
    guard count > 2 else { return false }
    for index in 2..<count where test(object.load(fromByteOffset: index * 8, as: UInt.self)) {
      return true
    }
    return false
  }

  /// Whether a heap object is a closure context (a capture list with a descriptor).
  package static func isClosureContext(metadata: UnsafeRawPointer) -> Bool {
    MetadataKind(rawKind: metadata.load(as: UInt.self)) == .heapLocalVariable
  }

  /// `App.ImageCache` → `ImageCache`.
  package static func shortName(_ qualified: String) -> String { TypeNames.short(qualified) }

  /// The function an async function pointer starting exactly at `address` points to; nil when no
  /// async function pointer symbol starts there (the word is then not read).
  package static func asyncFunction(pointedToBy address: UnsafeRawPointer) -> UnsafeRawPointer? {
    SymbolNames.asyncFunction(pointedToBy: address)
  }

  /// A function's name as a Swift developer writes it: `closure #1 in App.Feed.start() -> ()` (or
  /// `closure #1 () async -> () in App.Feed.start() -> ()`) → `closure #1 in Feed.start()`;
  /// `App.Feed.start() -> ()` → `Feed.start()`.
  package static func readableFunctionName(_ symbol: String) -> String {
    let symbol = SymbolNames.simplify(symbol)
    let closure = Advice.closureName(symbol)
    if closure != symbol { return closure }
    return Advice.withoutModule(Advice.functionName(Substring(symbol)))
  }

  /// The functions merged into the body that contains `address` (`SymbolNames.mergedCallers`), each
  /// with the addresses it passes; nil when that function is not a merged body.
  package static func mergedCallers(ofFunctionContaining address: UnsafeRawPointer) -> [(
    name: String, loads: [UInt]
  )]? {
    SymbolNames.mergedCallers(ofFunctionContaining: address)
  }

  /// The name of the function containing `address` (a return address), from the symbol tables.
  package static func functionName(containing address: UnsafeRawPointer) -> String? {
    SymbolNames.functionName(at: address)
  }
}
