// Raw reads for the heap census: words of recorded objects, their metadata and side tables, async
// function pointers, thick functions made for the walk, and the symbols of return addresses.

/// Runtime reads the heap census (`RetainGraphCensus`) needs, kept with the package's other raw reads;
/// the names it gives them are the core's (`CensusNames`).
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

  /// The strong count of the heap object at `address`, as the runtime keeps it (the caller keeps
  /// its memory allocated; reads it without retaining it).
  package static func strongCount(ofObjectAt address: UnsafeRawPointer) -> Int {
    ReferenceCounts.strong(ofObjectAt: address)
  }

  /// Whether a heap object's metadata is a class's (a closure context or box is not).
  package static func isClass(metadata: UnsafeRawPointer) -> Bool {
    MetadataKind(rawKind: metadata.load(as: UInt.self)) == .class
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

  /// Calls `body` with each word of the `size`-byte heap object at `object` after its two-word
  /// header (metadata, reference counts), which the caller keeps readable.
  package static func forEachWord(ofObjectAt object: UnsafeRawPointer, size: Int, _ body: (UInt) -> Void) {
    let count = size / 8
    guard count > 2 else { return }
    for index in 2..<count { body(object.load(fromByteOffset: index * 8, as: UInt.self)) }
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

  /// The function an async function pointer starting exactly at `address` points to; nil when no
  /// async function pointer symbol starts there (the word is then not read).
  package static func asyncFunction(pointedToBy address: UnsafeRawPointer) -> UnsafeRawPointer? {
    SymbolNames.asyncFunction(pointedToBy: address)
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
