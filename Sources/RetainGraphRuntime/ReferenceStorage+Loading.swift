/// Runtime entry points Swift 6.3 reserves for `@_silgen_name`.
private enum RuntimeFunctions {
  typealias WeakLoadStrong = @convention(c) (UnsafeRawPointer) -> UnsafeMutableRawPointer?
  // Returns the object (retained) when it is not deinitialising, nil otherwise. (It is declared
  // `HeapObject *swift_tryRetain(HeapObject *)` in this runtime, not `bool`.)
  typealias TryRetain = @convention(c) (UnsafeRawPointer) -> UnsafeMutableRawPointer?

  static let weakLoadStrong = RuntimeSymbols.function("swift_weakLoadStrong", as: WeakLoadStrong.self)
  static let tryRetain = RuntimeSymbols.function("swift_tryRetain", as: TryRetain.self)
}

/// What a non-strong reference points to right now.
package enum LoadedReference {
  case none
  /// The object, retained once: the caller owns that retain.
  case alive(Unmanaged<AnyObject>)
  /// An `unowned` reference whose object was already deinitialised.
  case dangling
  /// An `unowned(unsafe)` reference: never dereferenced, only its address is known.
  case address(UInt)
  /// The runtime entry point needed to read it safely is missing.
  case unreadable
}

package enum ReferenceLoader {
  /// Reads the non-strong reference stored at `address` without ever trapping.
  package static func load(_ storage: ReferenceStorage, at address: UnsafeRawPointer) -> LoadedReference {
    switch storage {
    case .weak:
      // Native weak storage (also the first word of a weak existential).
      guard let weakLoadStrong = RuntimeFunctions.weakLoadStrong else { return .unreadable }
      guard let object = weakLoadStrong(address) else { return .none }
      return .alive(Unmanaged<AnyObject>.fromOpaque(object))
    case .unowned:
      guard let raw = address.load(as: UnsafeRawPointer?.self) else { return .none }
      guard let tryRetain = RuntimeFunctions.tryRetain else { return .unreadable }
      guard let retained = tryRetain(raw) else { return .dangling }
      return .alive(Unmanaged<AnyObject>.fromOpaque(retained))
    case .unownedUnsafe:
      let raw = address.load(as: UInt.self)
      return raw == 0 ? .none : .address(raw)
    }
  }

  /// The object at `address`, retained, when it has not begun deinitialising; nil otherwise (or
  /// when `swift_tryRetain` is missing). `address` must be a heap object whose memory is still
  /// allocated.
  package static func retainedObject(at address: UnsafeRawPointer) -> AnyObject? {
    guard let tryRetain = RuntimeFunctions.tryRetain, let retained = tryRetain(address) else { return nil }
    return Unmanaged<AnyObject>.fromOpaque(retained).takeRetainedValue()
  }
}

/// Reads which object a native weak reference points to without retaining it, so that a weak edge to
/// an object already in the graph costs no reference counting. The layout (the weak reference holds
/// the object's side table; the side table's first word is the object; its reference counts, 16-byte
/// aligned, start at offset 16, with the deiniting flag at bit 32) is verified once with real objects; if the
/// check fails, every weak read goes through `swift_weakLoadStrong`.
///
/// `public` only so that its one-load reads, `@inlinable`, are inlined into the walk in another
/// module (Swift 6.3 does not inline a `package` type's `@inlinable` members there); every member
/// is `package` or internal, and the module is no product.
public enum WeakPeek {
  package static let isAvailable: Bool = {
    #if canImport(ObjectiveC)
      return false
    #else
      // Heap objects made out of line, so that the optimizer cannot put them on the stack.
      let holder = makeHolder()
      let alive = makeProbe()
      holder.reference = alive
      let field = UnsafeRawPointer(Unmanaged.passUnretained(holder).toOpaque()) + 16
      let expected = UInt(bitPattern: Unmanaged.passUnretained(alive).toOpaque())
      let seesAlive = liveTarget(at: field) == expected
      withExtendedLifetime(alive) {}
      let released = makeHolder()
      storeReleasedProbe(in: released)
      let ignoresReleased =
        liveTarget(at: UnsafeRawPointer(Unmanaged.passUnretained(released).toOpaque()) + 16) == nil
      withExtendedLifetime((holder, released)) {}
      return seesAlive && ignoresReleased
    #endif
  }()

  private final class Probe {}
  private final class Holder {
    weak var reference: Probe?
  }

  @inline(never) private static func makeProbe() -> Probe { Probe() }
  @inline(never) private static func makeHolder() -> Holder { Holder() }
  @inline(never) private static func storeReleasedProbe(in holder: Holder) {
    let probe = makeProbe()
    holder.reference = probe
  }

  /// The address of the object a weak reference at `address` points to, or nil when it is empty
  /// or its object is deinitialising (or gone).
  @inlinable package static func liveTarget(at address: UnsafeRawPointer) -> UInt? {
    let bits = address.load(as: UInt.self)
    guard bits != 0, let sideTable = UnsafeRawPointer(bitPattern: bits & ~UInt(7)) else { return nil }
    let object = sideTable.load(as: UInt.self)
    let strongBits = sideTable.load(fromByteOffset: 16, as: UInt64.self)
    guard object != 0, (strongBits >> 32) & 1 == 0 else { return nil }
    return object
  }
}
