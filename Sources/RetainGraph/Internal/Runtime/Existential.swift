/// Looks inside existential containers (README.md in this folder, "Existentials"): a value loaded from a field of
/// type `Any`, `any P` or `AnyObject` through a generic parameter stays boxed with its static type,
/// so its dynamic value is projected from the container's layout.
enum Existential {
  /// Loads a value of `type` stored at `address`, as an `Any` holding that type.
  static func load(_ type: any Any.Type, from address: UnsafeRawPointer) -> Any {
    func load<T>(_: T.Type) -> Any { address.load(as: T.self) }
    return load(type)
  }

  /// The value held by the existential container of type `type` at `address`, with its dynamic
  /// type; nil when the container is empty or of a shape not handled (an `Error` box).
  static func project(_ type: any Any.Type, at address: UnsafeRawPointer) -> Any? {
    let metadata = Metadata.pointer(of: type)
    let flags = metadata.load(fromByteOffset: 8, as: UInt32.self)
    let specialProtocol = (flags & 0x3F00_0000) >> 24
    guard specialProtocol == 0 else { return nil }
    let isClassBound = flags & 0x8000_0000 == 0
    if isClassBound {
      guard let object = address.load(as: UnsafeRawPointer?.self) else { return nil }
      return Unmanaged<AnyObject>.fromOpaque(object).takeUnretainedValue()
    }
    // An opaque container: a three-word buffer, then the dynamic type's metadata.
    guard let dynamicMetadata = address.load(fromByteOffset: 24, as: UnsafeRawPointer?.self) else {
      return nil
    }
    let dynamicType = Metadata.type(at: dynamicMetadata)
    let witnesses = dynamicMetadata.load(fromByteOffset: -8, as: UnsafeRawPointer.self)
    let witnessFlags = witnesses.load(fromByteOffset: 80, as: UInt32.self)
    let isInline = witnessFlags & 0x0002_0000 == 0
    if isInline { return load(dynamicType, from: address) }
    // Too big for the buffer: the value lives in a heap box after its 16-byte header.
    guard let box = address.load(as: UnsafeRawPointer?.self) else { return nil }
    let alignMask = Int(witnessFlags & 0xFF)
    return load(dynamicType, from: box + ((16 + alignMask) & ~alignMask))
  }
}
