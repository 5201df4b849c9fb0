internal import SwiftShims

// What a key path object holds for its subscript arguments (`\Table[owner]`): see README.md in
// this target, "Key paths".

package enum KeyPathLayout {
  /// One subscript argument a key path holds: its type and where its value is stored.
  package struct Argument {
    package var type: any Any.Type
    package var address: UnsafeRawPointer
  }

  /// What a key path object holds: its subscript arguments, and what could not be read (a
  /// sentence each).
  package struct Contents {
    package var arguments: [Argument] = []
    package var unread: [String] = []
  }

  private static let anyKeyPath = UInt(bitPattern: Metadata.pointer(of: AnyKeyPath.self))

  /// Whether `type` is a key path class (`AnyKeyPath` or a subclass: `KeyPath<Root, Value>`,
  /// `WritableKeyPath`, `ReferenceWritableKeyPath`…).
  package static func isKeyPathClass(_ type: any Any.Type) -> Bool {
    var candidate: (any Any.Type)? = type
    while let current = candidate {
      if UInt(bitPattern: Metadata.pointer(of: current)) == anyKeyPath { return true }
      candidate = Metadata.superclass(of: current)
    }
    return false
  }

  /// The subscript arguments the key path object at `object` holds (stdlib `KeyPath.swift`,
  /// SwiftShims `KeyPath.h`, Swift 6.3.1): the object (instance size 24 on this platform: header
  /// and `_kvcKeyPathStringPtr`) is followed by its buffer, a `UInt32` header (size in the low
  /// 24 bits) and, from the next word, the components. Each component is a `UInt32` header
  /// (kind in bits 24–30), then its body; between components, aligned to a word, the type of the
  /// value the component leads to. A computed component's body is 4 bytes of padding, its id,
  /// its getter, its setter when settable, and, when it has arguments, their size (a word), their
  /// witnesses (`ComputedArgumentWitnesses`: destroy, copy, equals, hash) and the arguments. The
  /// arguments' types are named by the `equals` and `hash` witnesses' symbols (`$s<types>TH`,
  /// `$s<types>Th`: "key path index equality operator for (M.Owner)"), laid out one after the
  /// other, each aligned; the layout must fill exactly the recorded size.
  package static func contents(ofKeyPath object: UnsafeRawPointer) -> Contents {
    var contents = Contents()
    guard let metadata = object.load(as: UnsafeRawPointer?.self),
      metadata.load(fromByteOffset: 24, as: UInt32.self) == 24
    else {
      contents.unread.append("a key path object of an unknown size was not read")
      return contents
    }
    let buffer = object + 24
    let header = buffer.load(as: UInt32.self)
    // A trivial buffer needs no destruction: it holds no argument that retains.
    if header & _SwiftKeyPathBufferHeader_TrivialFlag != 0 { return contents }
    let size = Int(header & _SwiftKeyPathBufferHeader_SizeMask)
    let start = buffer + 8
    let end = start + size
    var position = start
    func alignUp(_ pointer: UnsafeRawPointer, _ alignment: Int) -> UnsafeRawPointer {
      let value = UInt(bitPattern: pointer)
      return UnsafeRawPointer(bitPattern: (value + UInt(alignment - 1)) & ~UInt(alignment - 1)) ?? pointer
    }
    var components = 0
    while position < end, components < 1_024 {
      components += 1
      position = alignUp(position, 4)
      guard position + 4 <= end else { break }
      let componentHeader = position.load(as: UInt32.self)
      let body = position + 4
      let kind =
        (componentHeader & _SwiftKeyPathComponentHeader_DiscriminatorMask)
        >> _SwiftKeyPathComponentHeader_DiscriminatorShift
      let payload = componentHeader & _SwiftKeyPathComponentHeader_PayloadMask
      var bodySize = 0
      switch kind {
      case _SwiftKeyPathComponentHeader_StructTag, _SwiftKeyPathComponentHeader_ClassTag:
        let offset = payload & _SwiftKeyPathComponentHeader_StoredOffsetPayloadMask
        bodySize = offset == _SwiftKeyPathComponentHeader_OutOfLineOffsetPayload ? 4 : 0
      case _SwiftKeyPathComponentHeader_OptionalTag:
        bodySize = 0
      case _SwiftKeyPathComponentHeader_ComputedTag:
        let settable = payload & _SwiftKeyPathComponentHeader_ComputedSettableFlag != 0
        bodySize = 4 + 8 * (settable ? 3 : 2)
        if payload & _SwiftKeyPathComponentHeader_ComputedHasArgumentsFlag != 0 {
          let argumentHeader = body + bodySize
          guard argumentHeader + 16 <= end else {
            contents.unread.append("a computed component whose arguments lie outside the buffer was not read")
            return contents
          }
          let argumentSize = argumentHeader.load(as: Int.self)
          let witnesses = argumentHeader.load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
          var arguments = argumentHeader + 16
          var typedSize = argumentSize
          bodySize += 16
          if payload & _SwiftKeyPathComponentHeader_ComputedInstantiatedFromExternalWithArgumentsFlag != 0 {
            // A subscript of another module (`\[Key: Value][key]`): one more word, the size of
            // what follows the client's arguments (the subscript's generic environment), which the
            // witnesses do not see (measured: the client's `(Key)` witnesses, the key at the
            // start, then the Key and Value metadata and Key's Hashable witness table).
            guard arguments + 8 <= end else { return contents }
            typedSize = argumentSize - arguments.load(as: Int.self)
            arguments += 8
            bodySize += 8
          }
          if argumentSize >= 0, typedSize >= 0, typedSize <= argumentSize, arguments + argumentSize <= end,
            let witnesses
          {
            switch argumentTypes(witnesses: witnesses, size: typedSize, at: arguments) {
            case .success(let found): contents.arguments += found
            case .failure(let reason): contents.unread.append(reason.text)
            }
          } else {
            contents.unread.append(
              "subscript arguments of an unexpected size (\(argumentSize)) were not read")
          }
          guard argumentSize >= 0, argumentSize <= size else { return contents }
          bodySize += argumentSize
        }
      default:
        contents.unread.append("a key path component of an unknown kind (\(kind)) was not read")
        return contents
      }
      position = body + bodySize
      guard position < end else { break }
      position = alignUp(position, 8) + 8  // the type of the value the component leads to
    }
    return contents
  }

  /// The aligned words of `argument`'s value (its size from its type's value witnesses, the
  /// words of the key path object that holds it).
  package static func words(of argument: Argument) -> [UInt] {
    let size = Metadata.size(of: argument.type)
    guard UInt(bitPattern: argument.address) % 8 == 0 else { return [] }
    return stride(from: 0, to: size - 7, by: 8).map {
      argument.address.load(fromByteOffset: $0, as: UInt.self)
    }
  }

  package struct Unread: Error {
    package var text: String
  }

  /// The subscript arguments of `size` bytes at `address`, typed by the symbols of the `equals`
  /// and `hash` witnesses (the third and fourth words of `witnesses`), which must name the same
  /// types; the types must fill exactly `size` bytes. An optimised build may merge functions whose
  /// code differs only in the constants they use into one body named after the first with `Tm`
  /// (measured: `$s…KeyPathHolderCThTm`, which the other `Th` functions jump to): such a body
  /// names one of the types it serves, not necessarily these, so one of the two witnesses must
  /// be a function of its own (no `Tm`), and the other must name the same types.
  private static func argumentTypes(witnesses: UnsafeRawPointer, size: Int, at address: UnsafeRawPointer)
    -> Result<[Argument], Unread>
  {
    guard let equals = witnesses.load(fromByteOffset: 16, as: UnsafeRawPointer?.self),
      let hash = witnesses.load(fromByteOffset: 24, as: UnsafeRawPointer?.self),
      let equalsName = SymbolNames.symbolName(at: equals), let hashName = SymbolNames.symbolName(at: hash),
      let types = witnessTypes(equals: equalsName, hash: hashName)
    else { return .failure(Unread(text: "subscript arguments whose types no symbol names were not read")) }
    let typesName = "$s" + types + "TH"
    let mangled = Array(types.utf8)
    guard let parsed = MangledTypeReader.parseList(mangled) else {
      return .failure(
        Unread(
          text:
            "subscript arguments of types \(SymbolNames.demangled(typesName) ?? typesName) were not read"))
    }
    var offset = 0
    var arguments: [Argument] = []
    for item in parsed {
      guard let type = Metadata.unlistedType(item, in: nil, nearby: equals) else {
        return .failure(
          Unread(
            text:
              "a subscript argument of type \(SymbolNames.demangled("$s" + item.text + "D") ?? item.text) that could not be made was not read"
          ))
      }
      let alignment = Metadata.alignment(of: type)
      offset = (offset + alignment - 1) & ~(alignment - 1)
      arguments.append(Argument(type: type, address: address + offset))
      offset += Metadata.size(of: type)
    }
    guard offset == size else {
      return .failure(
        Unread(
          text: "subscript arguments whose layout (\(offset) bytes) is not the recorded \(size) were not read"
        ))
    }
    return .success(arguments)
  }

  /// The mangled argument types both witness names spell (`$s<types>TH`, `$s<types>Th`), one of
  /// them possibly a merged body (`…Tm`) but not both; nil otherwise.
  package static func witnessTypes(equals: String, hash: String) -> String? {
    func types(_ name: String, suffix: String) -> (types: Substring, merged: Bool)? {
      guard name.hasPrefix("$s") else { return nil }
      if name.hasSuffix(suffix + "Tm") { return (name.dropFirst(2).dropLast(suffix.count + 2), true) }
      if name.hasSuffix(suffix) { return (name.dropFirst(2).dropLast(suffix.count), false) }
      return nil
    }
    guard let equality = types(equals, suffix: "TH"), let hashing = types(hash, suffix: "Th"),
      equality.types == hashing.types, !(equality.merged && hashing.merged), !equality.types.isEmpty
    else { return nil }
    return String(equality.types)
  }
}
