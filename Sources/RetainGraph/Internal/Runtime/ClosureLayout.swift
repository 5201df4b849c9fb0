/// One value captured by a closure context.
struct Capture {
  enum Kind {
    /// A value of a known type, walked like a stored property.
    case value(any Any.Type)
    /// A weak, unowned or unowned(unsafe) capture.
    case reference(ReferenceStorage)
    /// A thick function value (function pointer and context), e.g. inside a reabstraction thunk.
    case function
    /// A box (a captured `var`, or a boxed weak capture) whose payload is at box + 16.
    indirect case box(Kind)
  }

  var offset: Int
  var kind: Kind
}

/// Reads closure contexts (README.md in this folder, "Closure contexts"). Returns nil rather than guessing.
enum ClosureLayout {
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
  static func isThick(_ type: any Any.Type) -> Bool {
    guard Metadata.kind(of: type) == .function else { return false }
    let flags = Metadata.pointer(of: type).load(fromByteOffset: 8, as: UInt.self)
    return (flags & 0x00FF_0000) >> 16 == 0
  }

  /// The closure a stored function really is, and its symbol's name: a closure that went through a
  /// generic parameter is wrapped in reabstraction thunks whose contexts hold only the real
  /// closure, so they are unwrapped (a bounded loop, never recursion). Nil when the function
  /// captures nothing.
  static func unwrappingThunks(_ stored: ThickFunction) -> (function: ThickFunction, name: String?)? {
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
  static func thunkedFunction(ofContext context: UnsafeRawPointer) -> ThickFunction? {
    guard let captures = captures(ofContext: context), captures.count == 1,
      case .function = captures[0].kind
    else { return nil }
    return ThickFunction(at: context + captures[0].offset)
  }

  /// The captures of a closure context (a heap object of metadata kind HeapLocalVariable), or nil
  /// when the context has no capture descriptor or a capture type cannot be resolved.
  static func captures(ofContext context: UnsafeRawPointer) -> [Capture]? {
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
    if bindingCount > 0 {
      // Generic captures: their types name generic parameters, bound by the metadata the context
      // stores first (the metadata sources say which binding is which parameter).
      guard
        let arguments = GenericArguments(
          descriptor: descriptor, captureCount: captureCount, sourceCount: sourceCount,
          bindings: context + 16, bindingCount: bindingCount)
      else { return nil }
      generics = arguments
    }
    var offset = 16 + 8 * bindingCount
    var captures: [Capture] = []
    for index in 0..<captureCount {
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
    return captures
  }

  private static func endsWith(_ text: [UInt8], _ suffix: String) -> Bool {
    let suffixBytes = Array(suffix.utf8)
    return text.count >= suffixBytes.count && Array(text.suffix(suffixBytes.count)) == suffixBytes
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
    if endsWith(text, "z_Xx") {
      // A box: one word in the context, the payload described by the name before the suffix.
      guard let (payload, _, _) = classify(name: name, length: length - 4, generics: generics) else {
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
    // SIL function types (`…Ieg…_`) do not resolve to metadata: a thick function is two words.
    if endsWith(text, "_"), text.contains(UInt8(ascii: "I")) {
      return (.function, 16, 8)
    }
    return nil
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

/// The generic arguments of a generic closure context, and a one-level generic environment that
/// lets the runtime resolve capture types such as `x` or `SayxG` against them.
struct GenericArguments {
  /// Argument metadata in generic-parameter order (depth 0 only).
  private var arguments: [UnsafeRawPointer?]

  init?(
    descriptor: UnsafeRawPointer, captureCount: Int, sourceCount: Int, bindings: UnsafeRawPointer,
    bindingCount: Int
  ) {
    var arguments = [UnsafeRawPointer?](repeating: nil, count: bindingCount)
    // Metadata sources follow the capture records: pairs of (generic parameter, source) names.
    for index in 0..<sourceCount {
      let pair = descriptor + 12 + 4 * captureCount + 8 * index
      guard let parameterName = Metadata.relative(pair), let sourceName = Metadata.relative(pair + 4),
        let parameter = Self.parameterIndex(MangledName(start: parameterName).trailingText),
        let binding = Self.bindingIndex(MangledName(start: sourceName).trailingText),
        parameter < bindingCount, binding < bindingCount
      else { return nil }
      arguments[parameter] = bindings.load(fromByteOffset: 8 * binding, as: UnsafeRawPointer?.self)
    }
    guard arguments.allSatisfy({ $0 != nil }) else { return nil }
    self.arguments = arguments
  }

  /// `x` → 0, `q_` → 1, `q0_` → 2, `q1_` → 3…
  private static func parameterIndex(_ text: [UInt8]) -> Int? {
    let name = String(decoding: text, as: UTF8.self)
    if name == "x" { return 0 }
    guard name.hasPrefix("q"), name.hasSuffix("_") else { return nil }
    let digits = name.dropFirst().dropLast()
    if digits.isEmpty { return 1 }
    return Int(digits).map { $0 + 2 }
  }

  /// `B0` → 0.
  private static func bindingIndex(_ text: [UInt8]) -> Int? {
    let name = String(decoding: text, as: UTF8.self)
    guard name.hasPrefix("B") else { return nil }
    return Int(name.dropFirst())
  }

  /// Calls `body` with a generic environment of one level holding `arguments.count` type
  /// parameters and no requirements (`TargetGenericEnvironment`: flags, parameter counts, parameter
  /// descriptors), and the arguments.
  func withEnvironment<R>(_ body: (UnsafeRawPointer, UnsafeRawPointer) -> R?) -> R? {
    let count = arguments.count
    let size = 4 + 2 + count
    let environment = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
    defer { environment.deallocate() }
    environment.storeBytes(of: UInt32(1), as: UInt32.self)  // one level, no requirements
    environment.storeBytes(of: UInt16(count), toByteOffset: 4, as: UInt16.self)
    for index in 0..<count {
      environment.storeBytes(of: UInt8(0x80), toByteOffset: 6 + index, as: UInt8.self)  // type, key argument
    }
    return arguments.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return nil }
      return body(UnsafeRawPointer(environment), UnsafeRawPointer(base))
    }
  }
}
