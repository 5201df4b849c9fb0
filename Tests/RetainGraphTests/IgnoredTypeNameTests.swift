import RetainGraph
import Testing

/// `GraphOptions.ignoredTypeNames`: types left out by name, for generic and private library types
/// that cannot be written in code.
@Suite("Ignored type names")
struct IgnoredTypeNameTests {
  private func typeNames(_ root: Any, ignoring names: [String]) -> [String] {
    ObjectGraph(reflecting: root, options: GraphOptions(ignoredTypeNames: names)).nodes.map(\.typeName)
  }

  @Test func aGenericLibraryTypeIsLeftOutByPattern() {
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    defer { continuation.finish() }
    let holder = NamedStreamHolder(stream: stream)
    let all = typeNames(holder, ignoring: [])
    #expect(all.contains("Swift.AsyncStream<Swift.Int>._Storage"))
    #expect(all.contains("Swift.AsyncStream<Swift.Int>._Context"))
    // Without the module, with it, or by the last name alone.
    for pattern in ["AsyncStream<*>._Storage", "Swift.AsyncStream<*>._Storage", "*._Storage"] {
      let names = typeNames(holder, ignoring: [pattern])
      #expect(!names.contains { $0.hasSuffix("._Storage") }, "\(pattern)")
      #expect(names.contains("Swift.AsyncStream<Swift.Int>._Context"), "\(pattern)")
    }
    // A pattern matches the whole name: these match nothing here.
    for pattern in ["AsyncStream", "_Storage", "Foundation.AsyncStream<*>._Storage", "AsyncStream<*>.*x"] {
      #expect(typeNames(holder, ignoring: [pattern]) == all, "\(pattern)")
    }
  }

  @Test func privateTypesAndSubclassesMatch() {
    let holder = NamedHolder()
    let all = typeNames(holder, ignoring: [])
    #expect(all.contains("RetainGraphTests.Secret"))
    // A private type by its name as the walk shows it (without the file's discriminator).
    for pattern in ["Secret", "RetainGraphTests.Secret", "*.Secret"] {
      #expect(!typeNames(holder, ignoring: [pattern]).contains { $0.contains("Secret") }, "\(pattern)")
    }
    // A subclass of a matched class is left out too.
    let names = typeNames(holder, ignoring: ["RetainGraphTests.NamedBase"])
    #expect(!names.contains("RetainGraphTests.NamedBase") && !names.contains("RetainGraphTests.NamedDerived"))
    #expect(names.contains("RetainGraphTests.NamedHolder"))
    #expect(GraphOptions(ignoredTypeNames: ["a*b"]).ignoredTypeNames == ["a*b"])
  }
}

final class NamedStreamHolder {
  let stream: AsyncStream<Int>
  init(stream: AsyncStream<Int>) { self.stream = stream }
}

class NamedBase {}
final class NamedDerived: NamedBase {}
private final class Secret {}

final class NamedHolder {
  let base: NamedBase = NamedDerived()
  private let secret = Secret()
}
