// Every raw read of Swift runtime metadata in the package lives in this target. Layouts are those of
// Swift 6.3 on Linux x86_64 (see README.md in this target); callers fall back to Mirror whenever a layout is not
// recognised.

/// The metadata kinds the walk distinguishes (`MetadataKind` in the runtime's `MetadataKind.def`).
///
/// `public` only so that its one-load reads, `@inlinable`, are inlined into the walk in another
/// module (Swift 6.3 does not inline a `package` type's `@inlinable` members there); its cases are
/// public as an enum's cases are, its initialiser `package`, and the module is no product.
public enum MetadataKind: Equatable {
  case `class`
  case `struct`
  case `enum`
  case optional
  case tuple
  case function
  case existential
  /// A constrained existential (`any P<Int>`, SE-0353), described by a shape.
  case extendedExistential
  case metatype
  case heapLocalVariable
  case heapGenericLocalVariable
  case other(UInt)

  @inlinable package init(rawKind: UInt) {
    switch rawKind {
    case 0: self = .class
    case 0x200: self = .struct
    case 0x201: self = .enum
    case 0x202: self = .optional
    case 0x301: self = .tuple
    case 0x302: self = .function
    case 0x303: self = .existential
    case 0x304, 0x306: self = .metatype
    case 0x307: self = .extendedExistential
    case 0x400: self = .heapLocalVariable
    case 0x500: self = .heapGenericLocalVariable
    default:
      // Values above 0x7FF are isa pointers: an Objective-C class (Darwin only).
      self = rawKind > 0x7FF ? .class : .other(rawKind)
    }
  }
}

/// Reads of type metadata: kinds, descriptors, generic arguments, superclasses, value witnesses, field
/// records and mangled names.
///
/// `public` only so that its one-load reads, `@inlinable`, are inlined into the walk in another
/// module (Swift 6.3 does not inline a `package` type's `@inlinable` members there); every member
/// is `package` or internal, and the module is no product.
public enum Metadata {
  @inlinable package static func pointer(of type: any Any.Type) -> UnsafeRawPointer {
    unsafeBitCast(type, to: UnsafeRawPointer.self)
  }

  @inlinable package static func type(at pointer: UnsafeRawPointer) -> any Any.Type {
    unsafeBitCast(pointer, to: Any.Type.self)
  }

  @inlinable package static func kind(of type: any Any.Type) -> MetadataKind {
    MetadataKind(rawKind: pointer(of: type).load(as: UInt.self))
  }

  /// The kind of the metadata a heap object points to.
  @inlinable package static func kind(ofHeapObject object: UnsafeRawPointer) -> MetadataKind {
    guard let metadata = object.load(as: UnsafeRawPointer?.self) else { return .other(0) }
    return MetadataKind(rawKind: metadata.load(as: UInt.self))
  }

  /// Generic argument `index` of the metadata at `metadata`: for a struct, enum or optional, the
  /// arguments follow the kind and descriptor words (offset 16); for a class without a resilient
  /// superclass, they start at `MetadataPositiveSizeInWords − NumImmediateMembers` words (class
  /// descriptor u32s at 28 and 32). Nil for other kinds and for resilient class layouts.
  package static func genericArgument(_ index: Int, ofMetadata metadata: UnsafeRawPointer)
    -> UnsafeRawPointer?
  {
    guard index < 64, let arguments = genericArguments(ofMetadata: metadata) else { return nil }
    return arguments.load(fromByteOffset: 8 * index, as: UnsafeRawPointer?.self)
  }

  /// Where the generic arguments of the metadata at `metadata` start (see ``genericArgument(_:ofMetadata:)``);
  /// nil when the type is not generic or its layout is resilient.
  package static func genericArguments(ofMetadata metadata: UnsafeRawPointer) -> UnsafeRawPointer? {
    let type = self.type(at: metadata)
    guard let descriptor = descriptor(of: type) else { return nil }
    let flags = descriptor.load(as: UInt32.self)
    guard flags & 0x80 != 0 else { return nil }  // not generic
    switch kind(of: type) {
    case .struct, .enum, .optional:
      return metadata + 16
    case .class:
      let hasResilientSuperclass = flags & (1 << (16 + 13)) != 0
      guard !hasResilientSuperclass else { return nil }
      let positiveWords = Int(descriptor.load(fromByteOffset: 28, as: UInt32.self))
      let immediateMembers = Int(descriptor.load(fromByteOffset: 32, as: UInt32.self))
      let offset = positiveWords - immediateMembers
      guard offset > 0 else { return nil }
      return metadata + 8 * offset
    default:
      return nil
    }
  }

  /// The first generic argument of a generic struct, enum or Optional (stored right after the
  /// description pointer).
  package static func firstGenericArgument(of type: any Any.Type) -> (any Any.Type)? {
    switch kind(of: type) {
    case .struct, .enum, .optional:
      guard let argument = pointer(of: type).load(fromByteOffset: 16, as: UnsafeRawPointer?.self)
      else { return nil }
      return self.type(at: argument)
    default:
      return nil
    }
  }

  /// The superclass of a native class, or nil at the root of the hierarchy.
  package static func superclass(of type: any Any.Type) -> (any Any.Type)? {
    guard kind(of: type) == .class,
      let superclass = pointer(of: type).load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
    else { return nil }
    return self.type(at: superclass)
  }

  /// The nominal type context descriptor of a class, struct or enum.
  package static func descriptor(of type: any Any.Type) -> UnsafeRawPointer? {
    switch kind(of: type) {
    case .class:
      #if canImport(ObjectiveC)
        let offset = 64
      #else
        let offset = 40
      #endif
      return pointer(of: type).load(fromByteOffset: offset, as: UnsafeRawPointer?.self)
    case .struct, .enum, .optional:
      return pointer(of: type).load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
    default:
      return nil
    }
  }

  /// Follows a 32-bit relative pointer stored at `address`.
  package static func relative(_ address: UnsafeRawPointer) -> UnsafeRawPointer? {
    let offset = address.loadUnaligned(as: Int32.self)
    return offset == 0 ? nil : address + Int(offset)
  }

  /// The mangled type names of the fields a nominal type declares itself (not inherited ones), in
  /// declaration order, read from its field descriptor.
  package static func ownFieldMangledNames(of type: any Any.Type) -> [MangledName]? {
    guard let descriptor = descriptor(of: type),
      let fields = relative(descriptor + 16)
    else { return nil }
    let recordSize = Int(fields.loadUnaligned(fromByteOffset: 10, as: UInt16.self))
    let count = Int(fields.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
    guard recordSize >= 12 else { return nil }
    var names: [MangledName] = []
    names.reserveCapacity(count)
    for index in 0..<count {
      let record = fields + 16 + index * recordSize
      guard let name = relative(record + 4) else {
        names.append(MangledName(bytes: []))
        continue
      }
      var mangled = MangledName(start: name)
      mangled.location = (name, type)
      names.append(mangled)
    }
    return names
  }

  package typealias TypeByMangledNameInContext =
    @convention(c) (UnsafePointer<CChar>, Int, UnsafeRawPointer?, UnsafeRawPointer?) -> UnsafeRawPointer?
  /// The `2` variant is the one compiled code calls since Swift 6: unlike the first, it returns
  /// noncopyable types (the first substitutes `()` for them, for old clients such as Mirror).
  package static let typeByMangledNameInContext =
    RuntimeSymbols.function("swift_getTypeByMangledNameInContext2", as: TypeByMangledNameInContext.self)
    ?? RuntimeSymbols.function("swift_getTypeByMangledNameInContext", as: TypeByMangledNameInContext.self)

  /// Resolves the mangled type name of length `length` at `start`, in the generic context of
  /// `owner` (its descriptor and generic arguments) when given.
  package static func type(
    mangledName start: UnsafeRawPointer, length: Int, in owner: (any Any.Type)? = nil
  ) -> (any Any.Type)? {
    guard let typeByMangledNameInContext, length > 0 else { return nil }
    var context: UnsafeRawPointer?
    var arguments: UnsafeRawPointer?
    if let owner {
      context = descriptor(of: owner)
      arguments = genericArguments(ofMetadata: pointer(of: owner))
    }
    return typeByMangledNameInContext(start.assumingMemoryBound(to: CChar.self), length, context, arguments)
      .map(type(at:))
  }

  /// The alignment of a type, from its value witness table.
  package static func alignment(of type: any Any.Type) -> Int {
    let witnesses = pointer(of: type).load(fromByteOffset: -8, as: UnsafeRawPointer.self)
    return Int(witnesses.load(fromByteOffset: 80, as: UInt32.self) & 0xFF) + 1
  }

  /// The value witness table's size of a type.
  /// Whether values of `type` cannot be copied (`~Copyable`): value witness flag 0x800000.
  package static func isNoncopyable(_ type: any Any.Type) -> Bool {
    let witnesses = pointer(of: type).load(fromByteOffset: -8, as: UnsafeRawPointer.self)
    return witnesses.load(fromByteOffset: 80, as: UInt32.self) & 0x0080_0000 != 0
  }

  /// Whether values of `type` hold no references at all (value witness flag 0x10000 clear). Unlike
  /// `_isPOD`, safe to ask of a noncopyable type.
  package static func isPOD(_ type: any Any.Type) -> Bool {
    let witnesses = pointer(of: type).load(fromByteOffset: -8, as: UnsafeRawPointer.self)
    return witnesses.load(fromByteOffset: 80, as: UInt32.self) & 0x0001_0000 == 0
  }

  /// The nominal type descriptor of `ManagedBuffer`, shared by every specialisation.
  private static let managedBufferDescriptor = UInt(bitPattern: descriptor(of: ManagedBuffer<Int, Int>.self))

  /// When `type` is `ManagedBuffer` or a subclass of it: the `ManagedBuffer<Header, Element>`
  /// ancestor's `Element`, whose values are tail-allocated after the object's stored fields.
  package static func managedBufferElement(of type: any Any.Type) -> (any Any.Type)? {
    var candidate: (any Any.Type)? = type
    while let current = candidate {
      if UInt(bitPattern: descriptor(of: current)) == managedBufferDescriptor {
        return genericArgument(1, ofMetadata: pointer(of: current)).map(self.type(at:))
      }
      candidate = superclass(of: current)
    }
    return nil
  }

  package static func size(of type: any Any.Type) -> Int {
    let witnesses = pointer(of: type).load(fromByteOffset: -8, as: UnsafeRawPointer.self)
    return witnesses.load(fromByteOffset: 64, as: Int.self)
  }
}

/// A mangled type name as stored in a field record: symbolic references (a byte 0x01–0x17 followed
/// by 4 payload bytes, 0x18–0x1F followed by 8) may contain zero bytes, so the end is found by skipping
/// payloads.
package struct MangledName {
  /// Where the name is, and the type whose context it is resolved in (field records only).
  package var location: (start: UnsafeRawPointer, owner: any Any.Type)?
  /// The bytes after the last symbolic reference: the only part whose suffix can be trusted.
  package var trailingText: [UInt8]

  package init(bytes: [UInt8]) { trailingText = bytes }

  package init(start: UnsafeRawPointer) {
    let (length, textStart) = Self.measure(start)
    trailingText = (textStart..<length).map { start.load(fromByteOffset: $0, as: UInt8.self) }
  }

  /// The length in bytes of the mangled name at `start`, up to its terminating NUL.
  package static func length(at start: UnsafeRawPointer) -> Int { measure(start).length }

  /// Walks a mangled name to its real terminating NUL, skipping symbolic references (a byte
  /// 0x01–0x17 and 4 payload bytes, 0x18–0x1F and 8; payloads may hold zeros): its length, and where
  /// the text after the last symbolic reference starts.
  private static func measure(_ start: UnsafeRawPointer) -> (length: Int, textStart: Int) {
    var index = 0
    var textStart = 0
    while true {
      let byte = start.load(fromByteOffset: index, as: UInt8.self)
      switch byte {
      case 0: return (index, textStart)
      case 0x01...0x17:
        index += 5
        textStart = index
      case 0x18...0x1F:
        index += 9
        textStart = index
      default:
        index += 1
      }
    }
  }

  /// The reference ownership a field's mangled type name ends with, when it ends with one.
  package var referenceOwnership: ReferenceStorage? {
    guard trailingText.count >= 2 else { return nil }
    let suffix = (trailingText[trailingText.count - 2], trailingText[trailingText.count - 1])
    switch suffix {
    case (UInt8(ascii: "X"), UInt8(ascii: "w")): return .weak
    case (UInt8(ascii: "X"), UInt8(ascii: "o")): return .unowned
    case (UInt8(ascii: "X"), UInt8(ascii: "u")): return .unownedUnsafe
    default: return nil
    }
  }
}

/// How a non-strong stored reference is laid out.
package enum ReferenceStorage: Equatable {
  case weak
  case unowned
  case unownedUnsafe
}
