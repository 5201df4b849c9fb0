import Foundation
import RetainGraphRuntime
import Testing

@testable import RetainGraph

/// What the walk reads with the binary readers (the package trait `BinaryReaders`, on by default) and
/// what a build without them (`--disable-default-traits`, as a platform without readers of its own)
/// reads instead: the same graph, with closures named after where they are stored and every word of
/// a suspended frame that equals an object counted as a reference, each noted once. Both branches
/// are checked against the runtime (a weak probe after release).
@Suite("Binary readers: with and without")
struct BinaryReadersTests {
  /// Holds a closure that captures it and a value (a closure context of two captures, not the
  /// object itself as the context).
  final class Holder {
    var handler: (() -> Void)?
    var count = 0
    func start() {
      let step = 2
      handler = { self.count += step }
    }
  }

  @inline(never)
  private func walkAndRelease(_ make: () -> AnyObject) -> (ObjectGraph, WeakProbe) {
    let root = make()
    return (ObjectGraph(reflecting: root), WeakProbe(root))
  }

  @Test func aClosureIsNamedFromTheSymbolTablesOnlyWithTheReaders() throws {
    let (graph, probe) = walkAndRelease {
      let holder = Holder()
      holder.start()
      return holder
    }
    // The cycle is the same either way, and the runtime agrees.
    #expect(probe.object != nil, "the runtime freed the holder\n\(graph.report())")
    #expect(graph.predictedLeaks().contains(graph.root), "\(graph.report())")
    let closure = try #require(graph.nodes.first { $0.kind == .closure }, "\(graph.report())")
    #expect(graph.isComplete, "\(graph.walkNotes)")
    #if BinaryReaders
      #expect(closure.typeName.hasPrefix("closure #1 in "), "\(closure.typeName)")
      #expect(closure.typeName.contains("Holder.start()"), "\(closure.typeName)")
      #expect(graph.walkNotes == [], "\(graph.walkNotes)")
    #else
      #expect(closure.typeName == "closure at Holder.handler", "\(closure.typeName)")
      #expect(graph.walkNotes.map(\.kind) == [.unnamedFunctions], "\(graph.walkNotes)")
      #expect(graph.walkNotes.first?.node == graph.root)
      #expect(graph.incompleteness(graph.walkNotes, mayMiss: "a retain cycle") == nil)
    #endif
    (probe.object as? Holder)?.handler = nil
    #expect(probe.object == nil)
  }

  /// The twin that must not be flagged with the readers: `self?.` re-checked for each element of a
  /// stream. A debug build's suspended frame keeps a stale strong `self` (a temporary whose scope
  /// ended); the readers rule it out (the machine code says it is dead), and the runtime frees the
  /// owner. Without them the word counts as a reference: a cycle the runtime does not keep, which
  /// the `.conservativeFrames` note warns of (never "no reference" where one may be).
  @Test func aStaleFrameWordIsAReferenceOnlyWithoutTheReaders() async throws {
    let (graph, probe, words, stop) = await walkConsumerAndRelease()
    defer { stop() }
    for _ in 0..<50 where probe.object != nil { try await Task.sleep(for: .milliseconds(10)) }
    #expect(probe.object == nil, "the runtime kept the consumer\n\(graph.report())")
    #if DEBUG
      #expect(words > 0, "the debug frame holds no word equal to the consumer")
    #endif
    // The frame's references to the consumer (its words equal to the stream's storage are live).
    let frameEdges = graph.edges.filter { $0.kind == .suspendedFrame && $0.to == graph.root }
    #expect(graph.isComplete, "\(graph.walkNotes)")
    #if BinaryReaders
      #expect(frameEdges.isEmpty, "\(graph.report())")
      #expect(!graph.predictedLeaks().contains(graph.root), "\(graph.report())")
      #expect(!graph.walkNotes.contains { $0.kind == .conservativeFrames }, "\(graph.walkNotes)")
    #else
      // Every word equal to the consumer counts: one edge from the task to it when there is one.
      #expect(frameEdges.count == (words > 0 ? 1 : 0), "\(graph.report())")
      #expect(graph.predictedLeaks().contains(graph.root) == (words > 0), "\(graph.report())")
      #expect(graph.walkNotes.filter { $0.kind == .conservativeFrames }.count == 1, "\(graph.walkNotes)")
      #expect(graph.incompleteness(graph.walkNotes, mayMiss: "a retain cycle") == nil)
    #endif
  }

  /// The consumer's graph, a probe, and how many words of its task's frames equal it (read from the
  /// frames directly, not through the walk).
  @inline(never)
  private func walkConsumerAndRelease() async -> (ObjectGraph, WeakProbe, Int, StopTask) {
    let (owner, stop) = await StreamConsumer.make({ $0.startOptionalChainingPerElement() }, elements: 2)
    var words = 0
    if let consumer = owner as? StreamConsumer, let stored = consumer.task {
      let task = unsafeBitCast(stored, to: UnsafeRawPointer.self)
      let address = UInt(bitPattern: Unmanaged.passUnretained(consumer).toOpaque())
      TaskLayout.forEachFrameWord(ofTask: task) { _, word in
        if word == address { words += 1 }
        return true
      }
    }
    return (ObjectGraph(reflecting: owner), WeakProbe(owner), words, stop)
  }
}
