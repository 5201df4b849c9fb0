// Field types the compiler hides from reflection (noncopyable types such as `Mutex`), and how they
// are recovered: see README.md in this target, "Reflection blind spots".

extension Metadata {
  /// Whether instances of the class named `qualifiedName` are Core Foundation objects whose memory
  /// CF lays out, not the Swift class's declared fields: swift-corelibs-foundation gives the objects
  /// CF makes (a set, a dictionary, a string, a run loop timer's collections) the classes `_NSCF…`
  /// and `__NSCF…`, subclasses of `NSSet`, `NSDictionary`, … whose inherited Swift fields (`_storage:
  /// Set<NSObject>`) are not there. Reading them by those fields dereferences CF's words.
  package static func isLaidOutByCoreFoundation(qualifiedName: String) -> Bool {
    qualifiedName.hasPrefix("Foundation._NSCF") || qualifiedName.hasPrefix("Foundation.__NSCF")
  }

  /// What a field record says of a type the compiler hides from reflection.
  package enum HiddenType {
    /// `Synchronization.Atomic`, whose storage is always its value's `AtomicRepresentation`
    /// (integers), never a reference.
    case atomic
    /// The type, recovered.
    case recovered(any Any.Type)
    /// A type that could not be made, by its readable name.
    case unrecovered(String)
  }

  /// The type a field record names, where the reflection runtime reports `()` for a noncopyable
  /// field's type (a `Mutex`); nil when the record's type is not hidden. Compiled code hides such a
  /// type from reflection: the field record names it by a symbolic reference to an accessor (byte
  /// 0x09, then a relative pointer, int32) that returns `()`'s metadata; but the record's name is
  /// itself a local symbol, `get_type_metadata <mangled type> noncopyable.<n>`, in the image's
  /// `.symtab`. Name lookup refuses noncopyable types, so the type is taken from the image's
  /// demangling cache or made by its own metadata accessor (``noncopyableType(mangled:in:nearby:)``);
  /// `.unrecovered` when the type's shape is not one handled there. A stripped image gives nil.
  /// What a hidden field's type is called when it cannot be named (without the binary readers).
  package static let unnamedHiddenType =
    "a noncopyable type (a Mutex's, say; named and read only with the package trait BinaryReaders)"

  /// Whether a field's type is named by a symbolic reference to an accessor function (kind 9), as
  /// a noncopyable type's is: the reflection runtime reports it as `()`.
  package static func isHiddenByAccessor(_ field: MangledName) -> Bool {
    field.location?.start.load(as: UInt8.self) == 0x09
  }

  package static func hiddenType(of field: MangledName) -> HiddenType? {
    guard let (start, owner) = field.location, start.load(as: UInt8.self) == 0x09,
      let symbol = SymbolNames.symbolName(at: start), symbol.hasPrefix(SymbolNames.hiddenTypePrefix),
      let end = symbol.firstRange(of: " noncopyable")
    else { return nil }
    let begin = symbol.index(symbol.startIndex, offsetBy: SymbolNames.hiddenTypePrefix.count)
    let mangled = String(symbol[begin..<end.lowerBound])
    if mangled.hasPrefix("15Synchronization6AtomicV") || mangled.contains("l15Synchronization6AtomicV") {
      return .atomic
    }
    if let type = instantiatedType(mangled: mangled, nearby: start)
      ?? noncopyableType(mangled: mangled, in: owner, nearby: start)
      ?? unlistedType(mangled: Array(mangled.utf8), in: owner, nearby: start)
    {
      return .recovered(type)
    }
    return .unrecovered(SymbolNames.demangled("$s" + mangled) ?? mangled)
  }

  /// The type compiled code instantiated through its demangling cache variable `$s<mangled>MD` in
  /// the same image: a word holding the metadata once made, or before that a negative value whose
  /// low 32 bits are a relative pointer (from the variable) to the type's name and whose high 32
  /// bits are its length, negated; resolved then as compiled code does, with
  /// `swift_getTypeByMangledNameInContext2`, which accepts noncopyable types. Private types (which
  /// name lookup by text cannot find) resolve this way because the name uses symbolic references.
  private static func instantiatedType(mangled: String, nearby address: UnsafeRawPointer) -> (any Any.Type)? {
    SymbolNames.localSymbol(named: "$s" + mangled + "MD", inImageContaining: address).flatMap(cachedType(at:))
  }

  /// The type of the demangling cache variable at `cache`, made if compiled code has not yet.
  private static func cachedType(at cache: UnsafeRawPointer) -> (any Any.Type)? {
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
  package static func keyArgumentCount(ofDescriptor descriptor: UnsafeRawPointer) -> Int? {
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
    let text = withoutGenericSignature(Array(mangled.utf8))
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
      // and words as `Synchronization.Mutex` (a module and a type, two words): `RetainGraph._P`,
      // declared in the core (`Internal/Walk/MutexArgumentStandIn.swift`; this module's name is
      // three words). Without the core in the process the name is not found and this returns nil.
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
      if let resolved, nominal == Array("15Synchronization5MutexV".utf8) {
        argumentMetadata = genericArgument(0, ofMetadata: pointer(of: resolved))
      } else if let resolved {
        argumentMetadata = pointer(of: resolved)
      } else {
        // Private types of another module cannot be found by name; compiled code that handles the
        // argument type on its own has a demangling cache variable for it, found by readable name.
        argumentMetadata = cachedArgument(of: text, nominal: nominal, nearby: address).map(pointer(of:))
      }
    }
    guard let argumentMetadata else { return nil }
    typealias Accessor =
      @convention(thin) (Int, UnsafeRawPointer) -> (metadata: UnsafeRawPointer?, state: Int)
    return unsafeBitCast(accessor, to: Accessor.self)(0, argumentMetadata).metadata.map(type(at:))
  }

  /// A type mangling without the generic signature before it: `Ri_zl` ("x: ~Copyable"), or an
  /// empty `l` (a field of a generic type names its parameters in the type's own signature).
  private static func withoutGenericSignature(_ text: [UInt8]) -> [UInt8] {
    if text.first == UInt8(ascii: "l") { return Array(text.dropFirst()) }
    if text.first == UInt8(ascii: "R"),
      let signatureEnd = text.indices.dropLast().first(where: {
        text[$0] == UInt8(ascii: "l") && (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(text[$0 + 1])
      })
    {
      return Array(text.dropFirst(signatureEnd + 1))
    }
    return text
  }

  /// The generic argument of the one-argument generic type mangled as `type` (`nominal` is its
  /// nominal part), made through the image's demangling cache variable for the argument alone.
  private static func cachedArgument(of type: [UInt8], nominal: [UInt8], nearby address: UnsafeRawPointer)
    -> (any Any.Type)?
  {
    guard let whole = SymbolNames.demangled("$s" + String(decoding: type, as: UTF8.self)),
      let base = SymbolNames.demangled("$s" + String(decoding: nominal, as: UTF8.self)),
      whole.hasPrefix(base + "<"), whole.hasSuffix(">")
    else { return nil }
    let argument = String(whole.dropFirst(base.count + 1).dropLast())
    return SymbolNames.metadataCache(forType: argument, inImageContaining: address).flatMap(cachedType(at:))
  }
}
