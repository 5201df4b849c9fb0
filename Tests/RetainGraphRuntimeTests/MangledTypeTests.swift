import RetainGraphRuntime
import Testing

/// Manglings the compiler writes, read by `MangledTypeReader`, spelled out again without
/// substitutions (`MangledType.text`) and resolved back by the runtime to the same type.
@Suite("Mangled types")
struct MangledTypeTests {
  final class Node {}
  struct Box<Value> {
    var value: Value
  }

  /// The type the runtime resolves the mangling `text` (no `$s`) to.
  static func resolve(_ text: String) -> (any Any.Type)? {
    let bytes = Array(text.utf8) + [0]
    return bytes.withUnsafeBytes { buffer in
      buffer.baseAddress.flatMap { Metadata.type(mangledName: $0, length: buffer.count - 1) }
    }
  }

  static let types: [any Any.Type] = [
    Node.self, [Node].self, [String: [Node]].self, Box<Node?>.self, (Node, Node).self,
    Box<(Int, Box<Node>)>.self, ((Node) -> Node).self,
  ]

  @Test(arguments: 0..<types.count)
  func aManglingReadsAndSpellsOutAndResolvesToItsType(index: Int) throws {
    let type = Self.types[index]
    let mangled = try #require(_mangledTypeName(type))
    let parsed = try #require(MangledTypeReader.parse(Array(mangled.utf8)), "not read: \(mangled)")
    #expect(!parsed.namesUnlistedType)
    // The text stands alone: the substitutions (`AC` for the second `Node` of a pair) are spelled
    // out, so it is at least as long as the compiler's, and the runtime finds the same type.
    #expect(parsed.text.utf8.count >= mangled.utf8.count)
    #expect(
      Self.resolve(parsed.text).map(ObjectIdentifier.init) == ObjectIdentifier(type),
      "\(mangled) spelled out as \(parsed.text)")
    #expect(MangledTypeReader.parse(Array(parsed.text.utf8)) == parsed)
  }

  @Test func aNominalTypeReadsAsItsContextAndName() throws {
    let mangled = try #require(_mangledTypeName(Node.self))
    let parsed = try #require(MangledTypeReader.parse(Array(mangled.utf8)))
    guard case .nominal(let kind, let context, let name, let discriminator, let local) = parsed else {
      Issue.record("not a nominal type: \(parsed)")
      return
    }
    #expect(kind == UInt8(ascii: "C") && name == "Node" && discriminator == nil && local == nil)
    guard
      case .nominal(UInt8(ascii: "V"), .module("RetainGraphRuntimeTests"), "MangledTypeTests", nil, nil) =
        context
    else {
      Issue.record("not the test suite's struct in the test module: \(context)")
      return
    }
  }
}
