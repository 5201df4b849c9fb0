/// Reads blocks (`@convention(block)` function values) far enough to find the Swift closure one
/// was made from (README.md in this target, "Blocks"). Returns nil rather than guessing.
package enum BlockLayout {
  /// `DISPATCH_BLOCK_PRIVATE_DATA_MAGIC`, the first captured word of a block made by
  /// `dispatch_block_create` (a `DispatchWorkItem`'s).
  package static let dispatchBlockMagic: UInt = 0xD159_B10C
  /// A block's header: isa, flags (u32) and reserved (u32), invoke, descriptor; captures follow.
  package static let headerSize = 32
  /// In a dispatch block's captured private data, the wrapped block (`dbpd_block`): after the
  /// magic, flags, atomic flags and performed (u32 each), priority, voucher.
  package static let dispatchWrappedBlockOffset = 72

  /// Whether a function type has the block convention (function metadata flags, bits 16–23 = 1).
  package static func isBlock(_ type: any Any.Type) -> Bool {
    guard Metadata.kind(of: type) == .function else { return false }
    let flags = Metadata.pointer(of: type).load(fromByteOffset: 8, as: UInt.self)
    return (flags & 0x00FF_0000) >> 16 == 1
  }

  /// The size of the block at `block`, from its descriptor (`{ reserved, size, … }` at 24).
  private static func size(of block: UnsafeRawPointer) -> Int? {
    guard let descriptor = block.load(fromByteOffset: 24, as: UnsafeRawPointer?.self) else { return nil }
    return descriptor.load(fromByteOffset: 8, as: Int.self)
  }

  /// The Swift closure the block at `block` calls: a block made from a Swift closure has as invoke
  /// the compiler's reabstraction thunk `… to @escaping @callee_unowned @convention(block) …` and
  /// captures the closure (function at 32, context at 40); a dispatch block (a `DispatchWorkItem`'s)
  /// wraps one, found after its magic word. Nil for any other block.
  package static func swiftClosure(ofBlock block: UnsafeRawPointer) -> ThickFunction? {
    var current = block
    for _ in 0..<2 {
      guard let size = size(of: current), size >= headerSize + 16 else { return nil }
      if size >= dispatchWrappedBlockOffset + 8,
        current.load(fromByteOffset: headerSize, as: UInt.self) == dispatchBlockMagic
      {
        guard
          let wrapped = current.load(fromByteOffset: dispatchWrappedBlockOffset, as: UnsafeRawPointer?.self)
        else { return nil }
        current = wrapped
        continue
      }
      guard let invoke = current.load(fromByteOffset: 16, as: UnsafeRawPointer?.self),
        let name = SymbolNames.symbolName(at: invoke).flatMap(SymbolNames.demangled),
        name.contains("thunk"), name.contains("@convention(block)")
      else { return nil }
      return ThickFunction(at: current + headerSize)
    }
    return nil
  }
}
