/// One value captured by a closure context.
package struct Capture {
  package enum Kind {
    /// A value of a known type, walked like a stored property.
    case value(any Any.Type)
    /// A weak, unowned or unowned(unsafe) capture.
    case reference(ReferenceStorage)
    /// A thick function value (function pointer and context), e.g. inside a reabstraction thunk.
    case function
    /// A box (a captured `var`, or a boxed weak capture) whose payload is at box + 16.
    indirect case box(Kind)
  }

  package var offset: Int
  package var kind: Kind
}

/// Reads closure contexts (README.md in this target, "Closure contexts"). Returns nil rather than guessing.
package enum ClosureLayout {
  private typealias TypeByMangledName =
    @convention(c) (
      UnsafePointer<CChar>, Int, UnsafeRawPointer?, UnsafeRawPointer?
    ) -> UnsafeRawPointer?
  private typealias TypeByMangledNameInEnvironment =
    @convention(c) (
      UnsafePointer<CChar>, Int, UnsafeRawPointer, UnsafeRawPointer
    ) -> UnsafeRawPointer?

  private static let typeByMangledName: TypeByMangledName? =
    RuntimeSymbols.function("swift_getTypeByMangledNameInContext", as: TypeByMangledName.self)
  private static let typeByMangledNameInEnvironment: TypeByMangledNameInEnvironment? =
    RuntimeSymbols.function(
      "swift_getTypeByMangledNameInEnvironment", as: TypeByMangledNameInEnvironment.self)
  /// Whether a function type uses the Swift calling convention: a thick value with a context.
  package static func isThick(_ type: any Any.Type) -> Bool {
    guard Metadata.kind(of: type) == .function else { return false }
    let flags = Metadata.pointer(of: type).load(fromByteOffset: 8, as: UInt.self)
    return (flags & 0x00FF_0000) >> 16 == 0
  }

  /// The closure a stored function really is, and its symbol's name: a closure that went through a
  /// generic parameter is wrapped in reabstraction thunks whose contexts hold only the real
  /// closure, so they are unwrapped (a bounded loop, never recursion). Nil when the function
  /// captures nothing.
  package static func unwrappingThunks(_ stored: ThickFunction) -> (function: ThickFunction, name: String?)? {
    var function = stored
    guard var context = function.context else { return nil }
    var name = function.function.flatMap(SymbolNames.functionName(at:))
    for _ in 0..<32 {
      guard name == nil || name?.contains("thunk") == true,
        let inner = thunkedFunction(ofContext: context)
      else { break }
      guard let innerContext = inner.context else { return nil }
      function = inner
      name = inner.function.flatMap(SymbolNames.functionName(at:))
      context = innerContext
    }
    return (function, name)
  }

  /// Whether a context holds exactly one thick function and nothing else: the shape of a
  /// reabstraction thunk's context, whose function is the real closure.
  package static func thunkedFunction(ofContext context: UnsafeRawPointer) -> ThickFunction? {
    guard let captures = captures(ofContext: context), captures.count == 1,
      case .function = captures[0].kind
    else { return nil }
    return ThickFunction(at: context + captures[0].offset)
  }

  /// The captures of a closure context (a heap object of metadata kind HeapLocalVariable), or nil
  /// when the context has no capture descriptor or a capture type cannot be resolved.
  package static func captures(ofContext context: UnsafeRawPointer) -> [Capture]? {
    guard let metadata = context.load(as: UnsafeRawPointer?.self),
      MetadataKind(rawKind: metadata.load(as: UInt.self)) == .heapLocalVariable,
      let descriptor = metadata.load(fromByteOffset: 16, as: UnsafeRawPointer?.self),
      Int(bitPattern: descriptor) % 4 == 0
    else { return nil }
    let captureCount = Int(descriptor.load(as: UInt32.self))
    let bindingCount = Int(descriptor.load(fromByteOffset: 8, as: UInt32.self))
    guard captureCount < 4096, bindingCount < 4096 else { return nil }
    let sourceCount = Int(descriptor.load(fromByteOffset: 4, as: UInt32.self))
    guard sourceCount < 4096 else { return nil }
    var generics: GenericArguments?
    if bindingCount > 0 || sourceCount > 0 {
      // Generic captures: their types name generic parameters, bound by the metadata the context
      // stores first or found from a captured reference (the metadata sources say which is which
      // parameter). Without bindings, a context whose sources are not read is laid out as before.
      let arguments = GenericArguments(
        descriptor: descriptor, captureCount: captureCount, sourceCount: sourceCount,
        bindings: context + 16, bindingCount: bindingCount,
        referenceCapture: { referencedMetadata(ofCapture: $0, descriptor: descriptor, context: context) })
      if arguments == nil && bindingCount > 0 { return nil }
      generics = arguments
    }
    return layOut(
      descriptor: descriptor, count: captureCount, bindingCount: bindingCount, generics: generics)?
      .captures
  }

  /// The first `count` captures of a context whose descriptor is at `descriptor`, each at its offset
  /// (from 16 + 8 × `bindingCount`, in record order, aligned to its type), and where the next one
  /// would start; nil when a capture's type is not read.
  private static func layOut(
    descriptor: UnsafeRawPointer, count: Int, bindingCount: Int, generics: GenericArguments?
  ) -> (captures: [Capture], end: Int)? {
    var offset = 16 + 8 * bindingCount
    var captures: [Capture] = []
    for index in 0..<count {
      let record = descriptor + 12 + 4 * index
      guard let name = Metadata.relative(record) else { return nil }
      guard
        let (kind, size, alignment) = classify(
          name: name, length: MangledName.length(at: name), generics: generics)
      else { return nil }
      offset = (offset + alignment - 1) / alignment * alignment
      captures.append(Capture(offset: offset, kind: kind))
      offset += size
    }
    return (captures, offset)
  }

  /// The metadata of the object a context's capture `index` refers to strongly (a metadata source
  /// `R<index>_`: the generic class of a captured `self`), the captures before it laid out without
  /// generic parameters; nil when one of them needs them or the capture is not a class reference.
  private static func referencedMetadata(
    ofCapture index: Int, descriptor: UnsafeRawPointer, context: UnsafeRawPointer
  ) -> UnsafeRawPointer? {
    let captureCount = Int(descriptor.load(as: UInt32.self))
    let bindingCount = Int(descriptor.load(fromByteOffset: 8, as: UInt32.self))
    guard index < captureCount,
      let before = layOut(descriptor: descriptor, count: index, bindingCount: bindingCount, generics: nil)
    else { return nil }
    // A reference to a native object (one aligned word): its first word is its class's metadata.
    let offset = (before.end + 7) / 8 * 8
    guard let object = context.load(fromByteOffset: offset, as: UnsafeRawPointer?.self),
      Int(bitPattern: object) % 8 == 0,
      Metadata.kind(ofHeapObject: object) == .class
    else { return nil }
    return object.load(as: UnsafeRawPointer?.self)
  }

  private static func endsWith(_ text: [UInt8], _ suffix: String) -> Bool {
    let suffixBytes = Array(suffix.utf8)
    return text.count >= suffixBytes.count && Array(text.suffix(suffixBytes.count)) == suffixBytes
  }

  /// The length of a box's field type when `text` (the end of a name `length` bytes long) names a
  /// SIL box of one mutable field: `<field>z_Xx`, or in a generic context
  /// `<field>z_<generic arguments>_<generic signature>XX` (e.g. `…Xwz_x_lXX`, a boxed weak
  /// reference whose type mentions the parameter `x`). Nil for anything else.
  private static func boxedFieldLength(text: [UInt8], length: Int) -> Int? {
    if endsWith(text, "z_Xx") { return length - 4 }
    guard endsWith(text, "XX") else { return nil }
    // The field list ends at the last `z_`; what follows (arguments and signature) has no `z_`.
    let marker: [UInt8] = [UInt8(ascii: "z"), UInt8(ascii: "_")]
    var index = text.count - 2
    while index > 0 {
      index -= 1
      if text[index] == marker[0], text[index + 1] == marker[1] { return length - (text.count - index) }
    }
    return nil
  }

  /// Classifies a capture by its mangled type name: its kind, size and alignment.
  private static func classify(
    name: UnsafeRawPointer, length: Int, generics: GenericArguments?
  ) -> (Capture.Kind, Int, Int)? {
    var text = MangledName(start: name).trailingText
    // `MangledName` reads to the terminating NUL; trim to `length` when a shorter prefix is asked for.
    let fullLength = MangledName.length(at: name)
    if length < fullLength {
      let excess = fullLength - length
      guard excess <= text.count else { return nil }
      text.removeLast(excess)
    }
    if let fieldLength = boxedFieldLength(text: text, length: length) {
      // A box: one word in the context, the payload described by the name of its field.
      guard let (payload, _, _) = classify(name: name, length: fieldLength, generics: generics) else {
        return nil
      }
      return (.box(payload), 8, 8)
    }
    for (suffix, storage) in [("Xw", ReferenceStorage.weak), ("Xo", .unowned), ("Xu", .unownedUnsafe)]
    where endsWith(text, suffix) {
      let inner = resolve(name: name, length: length - 2, generics: generics)
      let size = inner.map(Metadata.size) ?? 8
      return (.reference(storage), max(size, 8), 8)
    }
    if let type = resolve(name: name, length: length, generics: generics) {
      return (.value(type), Metadata.size(of: type), Metadata.alignment(of: type))
    }
    // The dynamic `Self` of a class method (`<class>XD`), which the runtime resolves only inside the
    // method: laid out as the class (a strong reference), its thick metatype (`<class>XDXMT`, what
    // a closure using `Self.` captures) as the class's metatype (one word of metadata).
    for (suffix, isMetatype) in [("XDXMT", true), ("XD", false)] where endsWith(text, suffix) {
      guard let base = resolve(name: name, length: length - suffix.utf8.count, generics: generics),
        Metadata.kind(of: base) == .class
      else { return nil }
      let type = isMetatype ? metatype(of: base) : base
      return (.value(type), Metadata.size(of: type), Metadata.alignment(of: type))
    }
    // SIL function types (`…Ieg…_`) do not resolve to metadata: a thick function is two words.
    if endsWith(text, "_"), text.contains(UInt8(ascii: "I")) {
      return (.function, 16, 8)
    }
    return nil
  }

  /// `T.Type` for `T`.
  private static func metatype(of type: any Any.Type) -> any Any.Type {
    func open<T>(_: T.Type) -> any Any.Type { T.Type.self }
    return open(type)
  }

  private static func resolve(name: UnsafeRawPointer, length: Int, generics: GenericArguments?) -> (
    any Any.Type
  )? {
    guard length > 0 else { return nil }
    let start = name.assumingMemoryBound(to: CChar.self)
    let metadata: UnsafeRawPointer?
    if let generics {
      guard let typeByMangledNameInEnvironment else { return nil }
      metadata = generics.withEnvironment { environment, arguments in
        typeByMangledNameInEnvironment(start, length, environment, arguments)
      }
    } else {
      guard let typeByMangledName else { return nil }
      metadata = typeByMangledName(start, length, nil, nil)
    }
    return metadata.map(Metadata.type(at:))
  }
}

/// The generic arguments of a generic closure context, and a generic environment that lets the
/// runtime resolve capture types such as `x`, `SayxG` or `qd__` against them.
///
/// A context stores `NumBindings` words after its header: the metadata of generic parameters and,
/// for constrained parameters, witness tables. The capture descriptor's metadata sources say which
/// parameter each metadata comes from: `B<n>` (binding *n*), or `G<i><source>` (generic argument
/// *i* of the type the nested source gives). Bindings no source names are witness tables, which
/// capture types never need: their layout depends only on the parameters' metadata.
package struct GenericArguments {
  /// Generic parameters per depth (depth 0 first), each level's argument metadata in index order.
  private var levels: [[UnsafeRawPointer?]]
  /// The parameters (depth, index) that are packs (`each P`): their argument is a metadata pack.
  private var packs: Set<[Int]> = []

  /// The arguments the metadata sources of a closure's capture descriptor bind: from the context's
  /// bindings (`referenceCapture` gives the class metadata of the object a capture refers to, for
  /// the sources `R<capture>_`, nil when it cannot be read). Nil when a parameter stays unbound.
  package init?(
    descriptor: UnsafeRawPointer, captureCount: Int, sourceCount: Int, bindings: UnsafeRawPointer,
    bindingCount: Int, referenceCapture: (Int) -> UnsafeRawPointer? = { _ in nil }
  ) {
    var levels: [[UnsafeRawPointer?]] = []
    var packs: Set<[Int]> = []
    // Metadata sources follow the capture records: pairs of (generic parameter, source) names.
    for index in 0..<sourceCount {
      let pair = descriptor + 12 + 4 * captureCount + 8 * index
      guard let parameterName = Metadata.relative(pair), let sourceName = Metadata.relative(pair + 4) else {
        return nil
      }
      let source = MangledName(start: sourceName).trailingText
      // A pack's shape (`s` + source: its element count) is read from the pack itself.
      if source.first == UInt8(ascii: "s") { continue }
      guard
        let (depth, position, isPack) = Self.sourceParameter(MangledName(start: parameterName).trailingText),
        depth < 16, position < 256
      else { return nil }
      while levels.count <= depth { levels.append([]) }
      while levels[depth].count <= position { levels[depth].append(nil) }
      // A parameter may have several sources (a binding, and a generic argument of a captured
      // reference's class when the closure uses the dynamic `Self`): the first one read is enough.
      // One not read (`R`, `M`) leaves the parameter unknown unless another source gives it.
      guard levels[depth][position] == nil,
        let metadata = Self.metadata(
          from: source[...], bindings: bindings, bindingCount: bindingCount,
          referenceCapture: referenceCapture)
      else { continue }
      levels[depth][position] = metadata
      if isPack {
        // A heap metadata pack: tagged in bit 0, its element count in the word before the elements.
        guard Int(bitPattern: metadata) & 1 == 1 else { return nil }
        packs.insert([depth, position])
      }
    }
    // Every parameter up to the last one named must be known: a capture type may mention any.
    guard !levels.isEmpty, levels.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0 != nil } }) else {
      return nil
    }
    self.levels = levels
    self.packs = packs
  }

  /// A metadata source's parameter: `x`, or a pack parameter, named as the pack of its own
  /// expansion (`xxQp_QP`, `Pack{repeat each x}`).
  private static func sourceParameter(_ text: [UInt8]) -> (depth: Int, index: Int, isPack: Bool)? {
    let packSuffix = Array("Qp_QP".utf8)
    if text.count > packSuffix.count, Array(text.suffix(packSuffix.count)) == packSuffix {
      // The expansion's pattern and count are the parameter itself.
      let both = text.dropLast(packSuffix.count)
      guard both.count % 2 == 0, both.prefix(both.count / 2).elementsEqual(both.suffix(both.count / 2)),
        let (depth, index) = parameter(Array(both.prefix(both.count / 2)))
      else { return nil }
      return (depth, index, true)
    }
    return parameter(text).map { ($0.depth, $0.index, false) }
  }

  /// `x` → (0, 0), `q_` → (0, 1), `q0_` → (0, 2), `qd__` → (1, 0), `qd_0_` → (1, 1),
  /// `qd0__` → (2, 0).
  private static func parameter(_ text: [UInt8]) -> (depth: Int, index: Int)? {
    let name = String(decoding: text, as: UTF8.self)
    if name == "x" { return (0, 0) }
    guard name.hasPrefix("q") else { return nil }
    var rest = Substring(name.dropFirst())
    var depth = 0
    if rest.hasPrefix("d") {
      rest = rest.dropFirst()
      guard let (depthMinusOne, afterDepth) = index(rest) else { return nil }
      depth = depthMinusOne + 1
      rest = afterDepth
    }
    guard let (position, remainder) = index(rest), remainder.isEmpty else { return nil }
    return (depth, depth == 0 ? position + 1 : position)
  }

  /// An `INDEX` of the mangling: `_` → 0, `<n>_` → n + 1; and what follows it.
  private static func index(_ text: Substring) -> (Int, Substring)? {
    guard let underscore = text.firstIndex(of: "_") else { return nil }
    let digits = text[..<underscore]
    let rest = text[text.index(after: underscore)...]
    if digits.isEmpty { return (0, rest) }
    guard let number = Int(digits) else { return nil }
    return (number + 1, rest)
  }

  /// The metadata a source names: `B0` → binding 0; `G1B0` → generic argument 1 of binding 0;
  /// `R1_` → the class of the object capture 1 refers to (`G0R1_`: a generic class's argument).
  private static func metadata(
    from source: ArraySlice<UInt8>, bindings: UnsafeRawPointer, bindingCount: Int,
    referenceCapture: (Int) -> UnsafeRawPointer?
  ) -> UnsafeRawPointer? {
    guard let kind = source.first else { return nil }
    let rest = source.dropFirst()
    let digits = rest.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    guard let number = Int(String(decoding: digits, as: UTF8.self)) else { return nil }
    switch kind {
    case UInt8(ascii: "B"):
      guard number < bindingCount, digits.count == rest.count else { return nil }
      return bindings.load(fromByteOffset: 8 * number, as: UnsafeRawPointer?.self)
    case UInt8(ascii: "G"):
      guard
        let base = metadata(
          from: rest.dropFirst(digits.count), bindings: bindings, bindingCount: bindingCount,
          referenceCapture: referenceCapture)
      else { return nil }
      return Metadata.genericArgument(number, ofMetadata: base)
    case UInt8(ascii: "R"):
      let after = rest.dropFirst(digits.count)
      guard after.isEmpty || after.elementsEqual([UInt8(ascii: "_")]) else { return nil }
      return referenceCapture(number)
    default:
      return nil  // metadata captures (`M`) are not emitted for closures seen here
    }
  }

  /// Calls `body` with a generic environment holding the arguments' levels and no requirements
  /// (`TargetGenericEnvironment`: flags — levels in bits 0–11, requirements from bit 12 —, the
  /// cumulative parameter count of each level as u16, one parameter descriptor byte per parameter),
  /// and the arguments, flattened level by level.
  package func withEnvironment<R>(_ body: (UnsafeRawPointer, UnsafeRawPointer) -> R?) -> R? {
    let arguments = levels.flatMap { $0 }
    let size = 4 + 2 * levels.count + arguments.count
    let environment = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
    defer { environment.deallocate() }
    environment.storeBytes(of: UInt32(levels.count), as: UInt32.self)
    var cumulative = 0
    for (depth, level) in levels.enumerated() {
      cumulative += level.count
      environment.storeBytes(of: UInt16(cumulative), toByteOffset: 4 + 2 * depth, as: UInt16.self)
    }
    var index = 0
    for (depth, level) in levels.enumerated() {
      for position in level.indices {
        // A key argument (0x80) of kind type (0) or type pack (1).
        let kind: UInt8 = packs.contains([depth, position]) ? 1 : 0
        environment.storeBytes(of: 0x80 | kind, toByteOffset: 4 + 2 * levels.count + index, as: UInt8.self)
        index += 1
      }
    }
    return arguments.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return nil }
      return body(UnsafeRawPointer(environment), UnsafeRawPointer(base))
    }
  }
}
