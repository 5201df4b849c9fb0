internal import RetainGraphSupport

// Types named by text that name lookup cannot find (private, fileprivate and local types), made
// through their own nominal type descriptors: see README.md in this target, "Private types in
// hidden fields".

extension Metadata {
  /// The type the textual mangling `mangled` (no `$s`; a generic signature first is skipped) spells, where it
  /// names a private, fileprivate or local type that the runtime's name lookup refuses (it matches
  /// only public and internal names: MetadataLookup.cpp, `_contextDescriptorMatchesMangling`).
  /// Each such nominal type is found by its nominal type descriptor (the symbol `$s<type>Mn` of
  /// the image that contains `address`, or the same symbol's readable name when the compiler
  /// spelled it with substitutions), and made by the access function the descriptor holds, given
  /// its generic arguments; the rest is resolved by name in the generic context of `owner`.
  package static func unlistedType(
    mangled: [UInt8], in owner: any Any.Type, nearby address: UnsafeRawPointer
  ) -> (any Any.Type)? {
    guard let parsed = MangledTypeReader.parse(mangled) else { return nil }
    return unlistedType(parsed, in: owner, nearby: address)
  }

  /// The type `parsed` (see ``unlistedType(mangled:in:nearby:)``), resolved in the generic
  /// context of `owner` when given.
  package static func unlistedType(
    _ parsed: MangledType, in owner: (any Any.Type)?, nearby address: UnsafeRawPointer
  ) -> (any Any.Type)? {
    var resolver = UnlistedTypeResolver(owner: owner, nearby: address)
    return resolver.metadata(of: parsed, depth: 0).map(type(at:))
  }
}

private struct UnlistedTypeResolver {
  let owner: (any Any.Type)?
  let nearby: UnsafeRawPointer

  init(owner: (any Any.Type)?, nearby: UnsafeRawPointer) {
    self.owner = owner
    self.nearby = nearby
  }

  /// The metadata of `type`: by name when the runtime can look it up, else through the nominal
  /// type's descriptor. Nesting is bounded (a name is at most 4 KiB; 32 levels of generic
  /// arguments are plenty).
  mutating func metadata(of type: MangledType, depth: Int) -> UnsafeRawPointer? {
    guard depth < 32 else { return nil }
    if !type.namesUnlistedType, let found = byName(type.text) { return found }
    switch type {
    case .nominal:
      return made(type, arguments: [])
    case .bound(let nominal, let levels):
      var arguments: [UnsafeRawPointer] = []
      for argument in levels.joined() {
        guard let resolved = metadata(of: argument, depth: depth + 1) else { return nil }
        arguments.append(resolved)
      }
      return made(nominal, arguments: arguments)
    default:
      return nil
    }
  }

  /// Name lookup in the owner's generic context (generic parameters `x`, `q_` are the owner's).
  func byName(_ text: String) -> UnsafeRawPointer? {
    let bytes = Array(text.utf8) + [0]
    return bytes.withUnsafeBytes { buffer in
      buffer.baseAddress.flatMap { Metadata.type(mangledName: $0, length: buffer.count - 1, in: owner) }
    }.map(Metadata.pointer(of:))
  }

  /// The nominal type `nominal` made by its descriptor's access function with `arguments`, when
  /// the descriptor takes exactly that many key arguments (generic parameters without
  /// conformance requirements, whose witness tables are not known here).
  func made(_ nominal: MangledType, arguments: [UnsafeRawPointer]) -> UnsafeRawPointer? {
    guard let descriptor = descriptor(of: nominal),
      Metadata.keyArgumentCount(ofDescriptor: descriptor) == arguments.count,
      let accessor = Metadata.relative(descriptor + 12)
    else { return nil }
    return Metadata.callAccessFunction(accessor, arguments: arguments)
  }

  /// The nominal type descriptor of `nominal`: exported (`dlsym`), a local symbol of the image
  /// with the same bytes, or one whose readable name is the same.
  func descriptor(of nominal: MangledType) -> UnsafeRawPointer? {
    let symbol = "$s" + nominal.text + "Mn"
    if let found = RuntimeSymbols.address(of: symbol)
      ?? SymbolNames.localSymbol(named: symbol, inImageContaining: nearby)
    {
      return found
    }
    guard let readable = SymbolNames.demangled(symbol) else { return nil }
    return SymbolNames.localSymbol(readablyNamed: readable, suffix: "Mn", inImageContaining: nearby)
  }
}

extension Metadata {
  /// Calls a metadata access function (`$s…Ma`, or a descriptor's `AccessFunction`) with request
  /// 0 (complete) and its key arguments: up to three passed directly, more as a pointer to an
  /// array (IRGen's `emitGenericTypeMetadataAccessFunction`; swiftcc, which a thin Swift function
  /// type shares). It returns the metadata and its state.
  package static func callAccessFunction(_ accessor: UnsafeRawPointer, arguments: [UnsafeRawPointer])
    -> UnsafeRawPointer?
  {
    typealias Response = (metadata: UnsafeRawPointer?, state: Int)
    switch arguments.count {
    case 0:
      typealias Accessor = @convention(thin) (Int) -> Response
      return unsafeBitCast(accessor, to: Accessor.self)(0).metadata
    case 1:
      typealias Accessor = @convention(thin) (Int, UnsafeRawPointer) -> Response
      return unsafeBitCast(accessor, to: Accessor.self)(0, arguments[0]).metadata
    case 2:
      typealias Accessor = @convention(thin) (Int, UnsafeRawPointer, UnsafeRawPointer) -> Response
      return unsafeBitCast(accessor, to: Accessor.self)(0, arguments[0], arguments[1]).metadata
    case 3:
      typealias Accessor =
        @convention(thin) (Int, UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer) -> Response
      return unsafeBitCast(accessor, to: Accessor.self)(0, arguments[0], arguments[1], arguments[2]).metadata
    default:
      typealias Accessor = @convention(thin) (Int, UnsafePointer<UnsafeRawPointer>) -> Response
      return arguments.withUnsafeBufferPointer { buffer in
        buffer.baseAddress.flatMap { unsafeBitCast(accessor, to: Accessor.self)(0, $0).metadata }
      }
    }
  }
}
