/// Looks inside existential containers (README.md in this target, "Existentials"): a value loaded from a field of
/// type `Any`, `any P` or `AnyObject` through a generic parameter stays boxed with its static type,
/// so its dynamic value is projected from the container's layout.
package enum Existential {
  /// Loads a value of `type` stored at `address`, as an `Any` holding that type.
  package static func load(_ type: any Any.Type, from address: UnsafeRawPointer) -> Any {
    func load<T>(_: T.Type) -> Any { address.load(as: T.self) }
    return load(type)
  }

  /// The value held by the existential container of type `type` at `address`, with its dynamic
  /// type; nil when the container is empty or of a shape not handled (an `Error` box).
  package static func project(_ type: any Any.Type, at address: UnsafeRawPointer) -> Any? {
    switch representation(of: type) {
    case .classBound:
      guard let object = address.load(as: UnsafeRawPointer?.self) else { return nil }
      return Unmanaged<AnyObject>.fromOpaque(object).takeUnretainedValue()
    case .opaque:
      break
    case .unknown:
      return nil
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

  /// How an existential type stores its value.
  package enum Representation {
    /// A three-word buffer, then the dynamic type's metadata (then witness tables).
    case opaque
    /// The object pointer first (then witness tables).
    case classBound
    /// `Error` boxes, metatypes, explicit layouts: left to `Mirror`, or not read.
    case unknown
  }

  /// The representation of an existential (`any P`: flags u32 at metadata + 8, bit 31 clear =
  /// class-bound, bits 24–29 = special protocol) or of a constrained existential (`any P<Int>`: its
  /// shape at metadata + 8, whose flags' low byte is the special kind: 0 opaque, 1 class,
  /// 2 metatype, 3 explicit layout).
  package static func representation(of type: any Any.Type) -> Representation {
    let metadata = Metadata.pointer(of: type)
    switch Metadata.kind(of: type) {
    case .existential:
      let flags = metadata.load(fromByteOffset: 8, as: UInt32.self)
      guard (flags & 0x3F00_0000) >> 24 == 0 else { return .unknown }
      return flags & 0x8000_0000 == 0 ? .classBound : .opaque
    case .extendedExistential:
      guard let shape = metadata.load(fromByteOffset: 8, as: UnsafeRawPointer?.self) else { return .unknown }
      switch shape.load(as: UInt32.self) & 0xFF {
      case 0: return .opaque
      case 1: return .classBound
      default: return .unknown
      }
    default:
      return .unknown
    }
  }
}
