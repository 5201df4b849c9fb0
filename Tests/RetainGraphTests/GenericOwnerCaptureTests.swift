import Testing

@testable import RetainGraph

/// A generic class whose closures capture only `self`: the context stores no generic binding, and
/// the capture's type `GenericOwner<T>` is bound from the captured object's class (the metadata
/// source `G0R<capture>_`).
final class GenericCaptureOwner<Value>: @unchecked Sendable {
  var handler: (() -> Void)?
  var task: Task<Void, Never>?
  var value: Value
  init(_ value: Value) { self.value = value }

  func install() { handler = { _ = self.value } }
  func installWeak() { handler = { [weak self] in _ = self?.value } }
  func start() {
    task = Task {
      while !Task.isCancelled {
        _ = self.value
        try? await Task.sleep(for: .seconds(3600))
      }
    }
  }
}

@Suite("Closures of a generic class that capture only self")
struct GenericOwnerCaptureTests {
  // Needs the binary readers: it expects no note, and without them a graph with a closure notes
  // the names it did not read.
  #if BinaryReaders
    /// The captures are read (no note) and the cycle is found exactly when the runtime keeps the
    /// owner after its release (weak probe).
    @Test(arguments: ["closure", "[weak self] closure", "task"])
    func capturesAreReadAndMatchTheRuntime(_ shape: String) async throws {
      let (graph, probe, task) = await walkAndRelease(shape)
      defer { task?.cancel() }
      let leaks = shape != "[weak self] closure"
      #expect(graph.walkNotes == [], "\(graph.report())")
      // A closure whose only capture is `self` is drawn straight to it (`handler (closure) → capture 0`).
      let captures = graph.edges.filter { edge in
        guard edge.to == graph.root else { return false }
        switch edge.kind {
        case .capture, .singleCapture: return true
        default: return false
        }
      }
      #expect(captures.map(\.ownership) == [leaks ? .strong : .weak], "\(graph.report())")
      #expect(graph.predictedLeaks().contains(graph.root) == leaks, "\(graph.report())")
      #expect((probe.object != nil) == leaks, "the runtime disagrees\n\(graph.report())")
      (probe.object as? GenericCaptureOwner<[Int]>)?.handler = nil
    }
  #endif

  @inline(never)
  private func walkAndRelease(_ shape: String) async -> (ObjectGraph, WeakProbe, Task<Void, Never>?) {
    let owner = GenericCaptureOwner([1, 2, 3])
    switch shape {
    case "closure": owner.install()
    case "[weak self] closure": owner.installWeak()
    default: owner.start()
    }
    if let task = owner.task { await waitUntilSettled(task) }
    return (ObjectGraph(reflecting: owner), WeakProbe(owner), owner.task)
  }
}
