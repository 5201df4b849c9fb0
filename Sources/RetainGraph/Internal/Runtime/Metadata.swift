// Every raw read of Swift runtime metadata in the package lives in this folder. Layouts are those of
// Swift 6.3 on Linux x86_64 (see README.md in this folder); callers fall back to Mirror whenever a layout is not
// recognised.

/// The metadata kinds the walk distinguishes (`MetadataKind` in the runtime's `MetadataKind.def`).
enum MetadataKind: Equatable {
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

  init(rawKind: UInt) {
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

enum Metadata {
  static func pointer(of type: any Any.Type) -> UnsafeRawPointer {
    unsafeBitCast(type, to: UnsafeRawPointer.self)
  }

  static func type(at pointer: UnsafeRawPointer) -> any Any.Type {
    unsafeBitCast(pointer, to: Any.Type.self)
  }

  static func kind(of type: any Any.Type) -> MetadataKind {
    MetadataKind(rawKind: pointer(of: type).load(as: UInt.self))
  }

  /// The kind of the metadata a heap object points to.
  static func kind(ofHeapObject object: UnsafeRawPointer) -> MetadataKind {
    guard let metadata = object.load(as: UnsafeRawPointer?.self) else { return .other(0) }
    return MetadataKind(rawKind: metadata.load(as: UInt.self))
  }

  /// Generic argument `index` of the metadata at `metadata`: for a struct, enum or optional, the
  /// arguments follow the kind and descriptor words (offset 16); for a class without a resilient
  /// superclass, they start at `MetadataPositiveSizeInWords − NumImmediateMembers` words (class
  /// descriptor u32s at 28 and 32). Nil for other kinds and for resilient class layouts.
  static func genericArgument(_ index: Int, ofMetadata metadata: UnsafeRawPointer) -> UnsafeRawPointer? {
    guard index < 64, let arguments = genericArguments(ofMetadata: metadata) else { return nil }
    return arguments.load(fromByteOffset: 8 * index, as: UnsafeRawPointer?.self)
  }

  /// Where the generic arguments of the metadata at `metadata` start (see ``genericArgument(_:ofMetadata:)``);
  /// nil when the type is not generic or its layout is resilient.
  static func genericArguments(ofMetadata metadata: UnsafeRawPointer) -> UnsafeRawPointer? {
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
  static func firstGenericArgument(of type: any Any.Type) -> (any Any.Type)? {
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
  static func superclass(of type: any Any.Type) -> (any Any.Type)? {
    guard kind(of: type) == .class,
      let superclass = pointer(of: type).load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
    else { return nil }
    return self.type(at: superclass)
  }

  /// The nominal type context descriptor of a class, struct or enum.
  static func descriptor(of type: any Any.Type) -> UnsafeRawPointer? {
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
  static func relative(_ address: UnsafeRawPointer) -> UnsafeRawPointer? {
    let offset = address.loadUnaligned(as: Int32.self)
    return offset == 0 ? nil : address + Int(offset)
  }

  /// The mangled type names of the fields a nominal type declares itself (not inherited ones), in
  /// declaration order, read from its field descriptor.
  static func ownFieldMangledNames(of type: any Any.Type) -> [MangledName]? {
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

  private typealias TypeByMangledNameInContext =
    @convention(c) (UnsafePointer<CChar>, Int, UnsafeRawPointer?, UnsafeRawPointer?) -> UnsafeRawPointer?
  /// The `2` variant is the one compiled code calls since Swift 6: unlike the first, it returns
  /// noncopyable types (the first substitutes `()` for them, for old clients such as Mirror).
  private static let typeByMangledNameInContext =
    RuntimeSymbols.function("swift_getTypeByMangledNameInContext2", as: TypeByMangledNameInContext.self)
    ?? RuntimeSymbols.function("swift_getTypeByMangledNameInContext", as: TypeByMangledNameInContext.self)

  /// Resolves the mangled type name of length `length` at `start`, in the generic context of
  /// `owner` (its descriptor and generic arguments) when given.
  static func type(
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

  /// The type a field record names, where the reflection runtime reports `()` for a noncopyable
  /// field's type (a `Mutex`). Compiled code hides such a type from reflection: the field record
  /// names it by a symbolic reference to an accessor (byte 0x09, then a relative pointer, int32)
  /// that returns `()`'s metadata; but the record's name is itself a local symbol,
  /// `get_type_metadata <mangled type> noncopyable.<n>`, in the image's `.symtab`. Name lookup
  /// refuses noncopyable types, so the type is made by its own metadata accessor instead
  /// (``noncopyableType(mangled:)``). Nil for any other name, when the image is stripped, or when
  /// the type's shape is not one handled there.
  static func declaredType(of field: MangledName) -> (any Any.Type)? {
    guard let (start, owner) = field.location, let mangled = hiddenTypeMangling(at: start) else { return nil }
    return instantiatedType(mangled: mangled, nearby: start)
      ?? noncopyableType(mangled: mangled, in: owner, nearby: start)
  }

  /// The mangled type of a field record whose type the compiler hides from reflection (see
  /// ``declaredType(of:)``), read from the record's symbol; nil for other records.
  private static func hiddenTypeMangling(at start: UnsafeRawPointer) -> String? {
    guard start.load(as: UInt8.self) == 0x09, let symbol = SymbolNames.symbolName(at: start),
      symbol.hasPrefix(SymbolNames.hiddenTypePrefix), let end = symbol.firstRange(of: " noncopyable")
    else { return nil }
    let begin = symbol.index(symbol.startIndex, offsetBy: SymbolNames.hiddenTypePrefix.count)
    return String(symbol[begin..<end.lowerBound])
  }

  /// The readable name of a field's type that the compiler hides from reflection, nil when the
  /// field's type is not hidden.
  static func hiddenTypeName(of field: MangledName) -> String? {
    guard let (start, _) = field.location, let mangled = hiddenTypeMangling(at: start) else { return nil }
    return SymbolNames.demangled("$s" + mangled) ?? mangled
  }

  /// Whether a hidden field type is `Synchronization.Atomic`, whose storage is always its value's
  /// `AtomicRepresentation` (integers), never a reference.
  static func isHiddenAtomic(_ field: MangledName) -> Bool {
    guard let (start, _) = field.location, let mangled = hiddenTypeMangling(at: start) else { return false }
    return mangled.hasPrefix("15Synchronization6AtomicV") || mangled.contains("l15Synchronization6AtomicV")
  }

  /// The type compiled code instantiated through its demangling cache variable `$s<mangled>MD` in
  /// the same image: a word holding the metadata once made, or before that a negative value whose
  /// low 32 bits are a relative pointer (from the variable) to the type's name and whose high 32
  /// bits are its length, negated; resolved then as compiled code does, with
  /// `swift_getTypeByMangledNameInContext2`, which accepts noncopyable types. Private types (which
  /// name lookup by text cannot find) resolve this way because the name uses symbolic references.
  private static func instantiatedType(mangled: String, nearby address: UnsafeRawPointer) -> (any Any.Type)? {
    guard let cache = SymbolNames.localSymbol(named: "$s" + mangled + "MD", inImageContaining: address)
    else { return nil }
    let value = cache.load(as: Int64.self)
    if value > 0 { return UnsafeRawPointer(bitPattern: UInt(value)).map(type(at:)) }
    guard value < 0, let typeByMangledNameInContext else { return nil }
    let name = cache + Int(Int32(truncatingIfNeeded: value))
    let length = Int(-(value >> 32))
    return typeByMangledNameInContext(name.assumingMemoryBound(to: CChar.self), length, nil, nil).map(
      type(at:))
  }

  /// How many key arguments (metadata and witness tables) the generic nominal type descriptor at
  /// `descriptor` takes; 0 when it is not generic; nil for a kind whose layout is not handled. The
  /// generic context header (`TypeGenericContextDescriptorHeader`: two relative pointers, then
  /// `NumParams`, `NumRequirements`, `NumKeyArguments`, u16 each) follows the struct or enum
  /// descriptor's 28 bytes, the class descriptor's 44.
  static func keyArgumentCount(ofDescriptor descriptor: UnsafeRawPointer) -> Int? {
    let flags = descriptor.load(as: UInt32.self)
    guard flags & 0x80 != 0 else { return 0 }
    let header: Int
    switch flags & 0x1F {
    case 17, 18: header = 28  // struct, enum
    case 16: header = 44  // class
    default: return nil
    }
    return Int(descriptor.loadUnaligned(fromByteOffset: header + 12, as: UInt16.self))
  }

  /// Makes a nominal type from its mangling through its metadata accessor, `$s<nominal>Ma` (found
  /// with `dlsym` for public types of shared libraries, such as `Synchronization.Mutex` and its
  /// `_Cell`, else in the symbol table of the image that declares the field): a non-generic type (`15Synchronization12_MutexHandleV`), or a generic type with one
  /// argument (`15Synchronization5MutexVy<argument>G`), the argument being a generic parameter of
  /// `owner` (`x`, `q_`) or a copyable type resolved by name. A generic signature before the type
  /// (`Ri_zl`, "x: ~Copyable") is skipped. The accessor takes the request (0: complete) and the
  /// arguments, and returns the metadata and its state, with the Swift calling convention that a
  /// thin Swift function type shares.
  private static func noncopyableType(
    mangled: String, in owner: any Any.Type, nearby address: UnsafeRawPointer
  ) -> (any Any.Type)? {
    var text = Array(mangled.utf8)
    if text.first == UInt8(ascii: "R"),
      let signatureEnd = text.indices.dropLast().first(where: {
        text[$0] == UInt8(ascii: "l") && (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(text[$0 + 1])
      })
    {
      text.removeFirst(signatureEnd + 1)
    }
    // The nominal part ends at its kind letter (struct V, enum O, class C) before `y…G`.
    var nominal = text
    var argument: [UInt8]?
    if let split = text.indices.dropLast().first(where: {
      [UInt8(ascii: "V"), UInt8(ascii: "O"), UInt8(ascii: "C")].contains(text[$0])
        && text[$0 + 1] == UInt8(ascii: "y")
    }), text.last == UInt8(ascii: "G") {
      nominal = Array(text[...split])
      argument = Array(text[(split + 2)..<(text.count - 1)])
    }
    let symbol = "$s" + String(decoding: nominal, as: UTF8.self)
    // Exported for public types; otherwise a local symbol of the image that declares the field.
    func find(_ name: String) -> UnsafeRawPointer? {
      RuntimeSymbols.address(of: name) ?? SymbolNames.localSymbol(named: name, inImageContaining: address)
    }
    guard let accessor = find(symbol + "Ma"), let descriptor = find(symbol + "Mn"),
      keyArgumentCount(ofDescriptor: descriptor) == (argument == nil ? 0 : 1)
    else { return nil }
    guard let argument else {
      typealias Accessor = @convention(thin) (Int) -> (metadata: UnsafeRawPointer?, state: Int)
      return unsafeBitCast(accessor, to: Accessor.self)(0).metadata.map(type(at:))
    }
    let argumentMetadata: UnsafeRawPointer?
    switch String(decoding: argument, as: UTF8.self) {
    case "x": argumentMetadata = genericArgument(0, ofMetadata: pointer(of: owner))
    case "q_": argumentMetadata = genericArgument(1, ofMetadata: pointer(of: owner))
    default:
      // The argument may refer back to earlier parts of the whole name (substitutions such as
      // `AF`), so it is resolved inside a copyable stand-in whose name adds the same substitutions
      // and words as `Synchronization.Mutex` (a module and a type, two words): `RetainGraph._P`.
      let name: [UInt8]
      if nominal == Array("15Synchronization5MutexV".utf8) {
        name = Array("11RetainGraph2_PVy".utf8) + argument + [UInt8(ascii: "G")]
      } else {
        name = argument
      }
      let bytes = name + [0]
      let resolved = bytes.withUnsafeBytes { buffer in
        buffer.baseAddress.flatMap { type(mangledName: $0, length: buffer.count - 1, in: owner) }
      }
      if nominal == Array("15Synchronization5MutexV".utf8) {
        argumentMetadata = resolved.flatMap { genericArgument(0, ofMetadata: pointer(of: $0)) }
      } else {
        argumentMetadata = resolved.map(pointer(of:))
      }
    }
    guard let argumentMetadata else { return nil }
    typealias Accessor =
      @convention(thin) (Int, UnsafeRawPointer) -> (metadata: UnsafeRawPointer?, state: Int)
    return unsafeBitCast(accessor, to: Accessor.self)(0, argumentMetadata).metadata.map(type(at:))
  }

  /// The alignment of a type, from its value witness table.
  static func alignment(of type: any Any.Type) -> Int {
    let witnesses = pointer(of: type).load(fromByteOffset: -8, as: UnsafeRawPointer.self)
    return Int(witnesses.load(fromByteOffset: 80, as: UInt32.self) & 0xFF) + 1
  }

  /// The value witness table's size of a type.
  /// Whether values of `type` cannot be copied (`~Copyable`): value witness flag 0x800000.
  static func isNoncopyable(_ type: any Any.Type) -> Bool {
    let witnesses = pointer(of: type).load(fromByteOffset: -8, as: UnsafeRawPointer.self)
    return witnesses.load(fromByteOffset: 80, as: UInt32.self) & 0x0080_0000 != 0
  }

  /// Whether values of `type` hold no references at all (value witness flag 0x10000 clear). Unlike
  /// `_isPOD`, safe to ask of a noncopyable type.
  static func isPOD(_ type: any Any.Type) -> Bool {
    let witnesses = pointer(of: type).load(fromByteOffset: -8, as: UnsafeRawPointer.self)
    return witnesses.load(fromByteOffset: 80, as: UInt32.self) & 0x0001_0000 == 0
  }

  /// The nominal type descriptor of `ManagedBuffer`, shared by every specialisation.
  private static let managedBufferDescriptor = UInt(bitPattern: descriptor(of: ManagedBuffer<Int, Int>.self))

  /// When `type` is `ManagedBuffer` or a subclass of it: the `ManagedBuffer<Header, Element>`
  /// ancestor's `Element`, whose values are tail-allocated after the object's stored fields.
  static func managedBufferElement(of type: any Any.Type) -> (any Any.Type)? {
    var candidate: (any Any.Type)? = type
    while let current = candidate {
      if UInt(bitPattern: descriptor(of: current)) == managedBufferDescriptor {
        return genericArgument(1, ofMetadata: pointer(of: current)).map(self.type(at:))
      }
      candidate = superclass(of: current)
    }
    return nil
  }

  static func size(of type: any Any.Type) -> Int {
    let witnesses = pointer(of: type).load(fromByteOffset: -8, as: UnsafeRawPointer.self)
    return witnesses.load(fromByteOffset: 64, as: Int.self)
  }
}

/// A mangled type name as stored in a field record: symbolic references (a byte 0x01–0x17 followed
/// by 4 payload bytes, 0x18–0x1F followed by 8) may contain zero bytes, so the end is found by skipping
/// payloads.
struct MangledName {
  /// Where the name is, and the type whose context it is resolved in (field records only).
  var location: (start: UnsafeRawPointer, owner: any Any.Type)?
  /// The bytes after the last symbolic reference: the only part whose suffix can be trusted.
  var trailingText: [UInt8]

  init(bytes: [UInt8]) { trailingText = bytes }

  init(start: UnsafeRawPointer) {
    let (length, textStart) = Self.measure(start)
    trailingText = (textStart..<length).map { start.load(fromByteOffset: $0, as: UInt8.self) }
  }

  /// The length in bytes of the mangled name at `start`, up to its terminating NUL.
  static func length(at start: UnsafeRawPointer) -> Int { measure(start).length }

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
  var referenceOwnership: ReferenceStorage? {
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
enum ReferenceStorage: Equatable {
  case weak
  case unowned
  case unownedUnsafe
}

/// A copyable stand-in with one generic parameter, whose mangled name (`11RetainGraph2_PV`) adds
/// the same substitutions and words as `15Synchronization5MutexV`: see
/// `Metadata.noncopyableType(mangled:in:)`.
struct _P<Value> {}
