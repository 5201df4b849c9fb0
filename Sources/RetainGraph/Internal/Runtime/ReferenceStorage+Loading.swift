#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// Runtime entry points Swift 6.3 reserves for `@_silgen_name`: reached through `dlsym` instead.
private enum RuntimeFunctions {
  typealias WeakLoadStrong = @convention(c) (UnsafeRawPointer) -> UnsafeMutableRawPointer?
  // Returns the object (retained) when it is not deinitialising, nil otherwise. (It is declared
  // `HeapObject *swift_tryRetain(HeapObject *)` in this runtime, not `bool`.)
  typealias TryRetain = @convention(c) (UnsafeRawPointer) -> UnsafeMutableRawPointer?

  static func lookup(_ name: String) -> UnsafeMutableRawPointer? {
    #if canImport(Darwin)
      let handle = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
    #else
      let handle: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
    #endif
    return dlsym(handle, name)
  }

  static let weakLoadStrong: WeakLoadStrong? = lookup("swift_weakLoadStrong").map {
    unsafeBitCast($0, to: WeakLoadStrong.self)
  }
  static let tryRetain: TryRetain? = lookup("swift_tryRetain").map {
    unsafeBitCast($0, to: TryRetain.self)
  }
}

/// What a non-strong reference points to right now.
enum LoadedReference {
  case none
  case alive(AnyObject)
  /// An `unowned` reference whose object was already deinitialised.
  case dangling
  /// An `unowned(unsafe)` reference: never dereferenced, only its address is known.
  case address(UInt)
  /// The runtime entry point needed to read it safely is missing.
  case unreadable
}

enum ReferenceLoader {
  /// Reads the non-strong reference stored at `address` without ever trapping.
  static func load(_ storage: ReferenceStorage, at address: UnsafeRawPointer) -> LoadedReference {
    switch storage {
    case .weak:
      // Native weak storage (also the first word of a weak existential).
      guard let weakLoadStrong = RuntimeFunctions.weakLoadStrong else { return .unreadable }
      guard let object = weakLoadStrong(address) else { return .none }
      return .alive(Unmanaged<AnyObject>.fromOpaque(object).takeRetainedValue())
    case .unowned:
      guard let raw = address.load(as: UnsafeRawPointer?.self) else { return .none }
      guard let tryRetain = RuntimeFunctions.tryRetain else { return .unreadable }
      guard let retained = tryRetain(raw) else { return .dangling }
      return .alive(Unmanaged<AnyObject>.fromOpaque(retained).takeRetainedValue())
    case .unownedUnsafe:
      let raw = address.load(as: UInt.self)
      return raw == 0 ? .none : .address(raw)
    }
  }
}
