import RetainGraphRuntime
import Testing

/// Metadata reads of types whose layout the compiler fixes: each kind, each descriptor, each generic
/// argument is compared with what the language says of the type.
@Suite("Metadata reads")
struct MetadataTests {
  class Base {
    var name = ""
  }
  final class Derived: Base {
    weak var peer: Base?
    var count = 0
  }
  struct Pair<First, Second> {
    var first: First
    var second: Second
  }
  enum Choice {
    case one(Base)
    case none
  }
  protocol Shape {}

  @Test func kindsOfKnownTypes() {
    #expect(Metadata.kind(of: Derived.self) == .class)
    #expect(Metadata.kind(of: Pair<Int, String>.self) == .struct)
    #expect(Metadata.kind(of: Choice.self) == .enum)
    #expect(Metadata.kind(of: Base?.self) == .optional)
    #expect(Metadata.kind(of: (Int, Base).self) == .tuple)
    #expect(Metadata.kind(of: (() -> Void).self) == .function)
    #expect(Metadata.kind(of: (any Shape).self) == .existential)
  }

  @Test func aHeapObjectsKindAndTypeAreItsClass() {
    let object: Base = Derived()
    let address = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    #expect(Metadata.kind(ofHeapObject: address) == .class)
    #expect(ObjectIdentifier(HeapLayout.dynamicType(ofObject: address)) == ObjectIdentifier(Derived.self))
    withExtendedLifetime(object) {}
  }

  @Test func nominalTypesHaveDescriptorsAndStructuralTypesNone() {
    #expect(Metadata.descriptor(of: Derived.self) != nil)
    #expect(Metadata.descriptor(of: Choice.self) != nil)
    #expect(Metadata.descriptor(of: (Int, Int).self) == nil)
    #expect(Metadata.descriptor(of: (() -> Void).self) == nil)
    // Every specialisation of a generic type shares its descriptor; another type has its own.
    #expect(Metadata.descriptor(of: Pair<Int, String>.self) == Metadata.descriptor(of: Pair<Base, Base>.self))
    #expect(Metadata.descriptor(of: Pair<Int, String>.self) != Metadata.descriptor(of: Choice.self))
  }

  @Test func genericArgumentsAndSuperclassesAreTheDeclaredOnes() {
    let pair = Metadata.pointer(of: Pair<Int, Base>.self)
    #expect(Metadata.genericArgument(0, ofMetadata: pair) == Metadata.pointer(of: Int.self))
    #expect(Metadata.genericArgument(1, ofMetadata: pair) == Metadata.pointer(of: Base.self))
    #expect(
      Metadata.firstGenericArgument(of: [Derived].self).map(ObjectIdentifier.init)
        == ObjectIdentifier(Derived.self))
    #expect(Metadata.superclass(of: Derived.self).map(ObjectIdentifier.init) == ObjectIdentifier(Base.self))
    #expect(Metadata.superclass(of: Base.self) == nil)
  }

  @Test func valueWitnessesAgreeWithMemoryLayout() {
    #expect(Metadata.size(of: Pair<Int8, Int64>.self) == MemoryLayout<Pair<Int8, Int64>>.size)
    #expect(Metadata.alignment(of: Pair<Int8, Int64>.self) == MemoryLayout<Pair<Int8, Int64>>.alignment)
    #expect(Metadata.isPOD(Pair<Int, Double>.self))
    #expect(!Metadata.isPOD(Pair<Int, Base>.self))
  }

  @Test func ownFieldsAreReadInDeclarationOrderWithTheirOffsets() throws {
    // A class's stored fields, the superclass's first, at the offsets the runtime gives them.
    let fields = try #require(FieldLayout.storedFields(of: Derived.self))
    #expect(fields.map(\.name) == ["name", "peer", "count"])
    #expect(fields.map(\.storage) == [.strong, .reference(.weak), .strong])
    #expect(Metadata.ownFieldMangledNames(of: Derived.self)?.count == 2)
    let object = Derived()
    object.count = 0x5EED
    let count = try #require(fields.last)
    let address = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    #expect(address.load(fromByteOffset: count.offset, as: Int.self) == 0x5EED)
    withExtendedLifetime(object) {}
  }
}
