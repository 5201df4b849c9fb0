/// Raw reads of the heap layouts the walk relies on: stored references, native array buffers, boxes,
/// thick functions and an object's class. Each layout fact is in this target's README.md, with the
/// check that guards it.
///
/// `public` only so that its one-load reads, `@inlinable`, are inlined into the walk in another
/// module (Swift 6.3 does not inline a `package` type's `@inlinable` members there); every member
/// is `package` or internal, and the module is no product.
public enum HeapLayout {
  /// The object a strong native reference (or a strong `Optional` of one) stored at `address` points
  /// to, nil when it is empty. Native references are one word: the object pointer.
  @inlinable package static func object(at address: UnsafeRawPointer) -> UnsafeRawPointer? {
    address.load(as: UnsafeRawPointer?.self)
  }

  /// Whether the one-word reference storage at `address` (strong, weak, unowned or
  /// unowned(unsafe)) is empty: a nil optional is stored as zero in every one of them.
  @inlinable package static func isEmptyReference(at address: UnsafeRawPointer) -> Bool {
    address.load(as: UInt.self) == 0
  }

  /// The class of a native Swift object, read without retaining it: its first word (the isa) is
  /// its class metadata. On Darwin an isa may be tagged or non-pointer, so the runtime is asked.
  @inlinable package static func dynamicType(ofObject object: UnsafeRawPointer) -> any Any.Type {
    #if canImport(ObjectiveC)
      return type(of: Unmanaged<AnyObject>.fromOpaque(object).takeUnretainedValue())
    #else
      return Metadata.type(at: object.load(as: UnsafeRawPointer.self))
    #endif
  }

  /// The elements of an `Array<C>` of class references whose storage is at `address`: the array
  /// is one word pointing to a native buffer with a 32-byte header (object header 16, count 8,
  /// capacity and flags 8), then the element pointers, one word each. An empty array points to the
  /// shared empty buffer, whose count is 0.
  @inlinable package static func arrayOfObjects(at address: UnsafeRawPointer) -> UnsafeBufferPointer<
    UnsafeRawPointer
  > {
    let buffer = address.load(as: UnsafeRawPointer.self)
    let count = buffer.load(fromByteOffset: 16, as: Int.self)
    let elements = (buffer + 32).assumingMemoryBound(to: UnsafeRawPointer.self)
    return UnsafeBufferPointer(start: elements, count: count)
  }

  /// The payload of the heap box whose pointer is stored at `address` (a captured `var`, a boxed
  /// weak capture): the box's 16-byte object header comes first; nil when no box is stored.
  @inlinable package static func boxPayload(at address: UnsafeRawPointer) -> UnsafeRawPointer? {
    address.load(as: UnsafeRawPointer?.self).map { $0 + 16 }
  }
}

/// A thick function value as stored: two words, the function pointer, then the context (nil when
/// the function captures nothing).
package struct ThickFunction {
  package var function: UnsafeRawPointer?
  package var context: UnsafeRawPointer?

  package init(function: UnsafeRawPointer?, context: UnsafeRawPointer?) {
    self.function = function
    self.context = context
  }

  /// Reads the two words of the function stored at `address` (its own storage: a field, a capture,
  /// a thunk's capture; never a value passed through a generic parameter, which is reabstracted).
  package init(at address: UnsafeRawPointer) {
    function = address.load(as: UnsafeRawPointer?.self)
    context = address.load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
  }
}
