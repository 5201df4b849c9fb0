import RetainGraph
import Samples
import Synchronization
import Testing
import XCTest

// MARK: - Samples, made so that a test keeps no reference to them

/// Builds samples for a check and remembers how to break their cycles, holding nothing but each
/// sample's break closure (which captures only cycle members) and weak references to every object.
final class SampleHarness: Sendable {
  private struct State {
    var breakers: [() -> Void] = []
    var probes: [Probe] = []
  }

  private struct Probe {
    weak var object: AnyObject?
  }

  private let state = Mutex<UncheckedBox<State>>(UncheckedBox(State()))

  /// A fresh instance of the named sample; returns its root.
  func make(_ name: String) -> AnyObject {
    guard let sample = Sample.named(name) else { fatalError("no sample named \(name)") }
    let instance = sample.make()
    state.withLock {
      // The breaker holds nothing strongly, so keeping it does not keep the sample alive.
      $0.value.breakers.append(instance.cycleBreaker)
      $0.value.probes += instance.objects.map { Probe(object: $0) }
    }
    return instance.root
  }

  /// Breaks every made sample's cycles and tells whether all their objects are then gone, waiting
  /// up to `patience` for them to go (a census search of a parallel test holds every object for a
  /// moment); `.zero` looks once, for a caller that expects them to stay.
  func breakCyclesAndCheckFreed(patience: Duration = .seconds(30)) -> Bool {
    let breakers = state.withLock { state in
      defer { state.value.breakers.removeAll() }
      return UncheckedBox(state.value.breakers)
    }.value
    for breakCycles in breakers { breakCycles() }
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: patience)
    while true {
      let freed = state.withLock { $0.value.probes.allSatisfy { $0.object == nil } }
      if freed || clock.now > deadline { return freed }
      Thread.sleep(forTimeInterval: 0.02)
    }
  }

  /// How many made objects are still alive.
  var aliveCount: Int { state.withLock { $0.value.probes.count { $0.object != nil } } }
}

/// Lets non-Sendable test state live behind a `Mutex`.
struct UncheckedBox<Value>: @unchecked Sendable {
  var value: Value
  init(_ value: Value) { self.value = value }
}

/// A weak reference for checks that an object is gone.
struct Weak<Object: AnyObject> {
  weak var object: Object?
  init(_ object: Object?) { self.object = object }
}

// MARK: - Objects retained from outside the graph

/// A service everyone shares, like a singleton; tests hold it in a local to play the global.
final class SharedService {
  var calls = 0
}

/// A module root that uses a shared service: no cycle, but the service outlives it.
final class ServiceClient {
  let service: SharedService
  let cache = ImageCache()
  init(service: SharedService) { self.service = service }
}

// MARK: - Generational analysis

/// An observer of an event bus; one per screen that was opened.
final class Observer {
  let name: String
  init(name: String) { self.name = name }
}

/// Keeps its observers in an array.
final class EventBus {
  var observers: [Observer] = []
}

/// A cache that keeps at most three entries.
final class ImageCache {
  var images: [String] = []
}

/// A dashboard that opens and closes a screen; the leaking one forgets to remove its observer.
final class Dashboard {
  let bus = EventBus()
  var caches: [ImageCache] = []
  let removesObservers: Bool
  let cachesPerRun: Bool
  private var opened = 0

  init(removesObservers: Bool, cachesPerRun: Bool = false) {
    self.removesObservers = removesObservers
    self.cachesPerRun = cachesPerRun
  }

  /// Opens a screen (registers an observer, maybe adds a cache, bounded to three) and closes it.
  func openAndCloseScreen() {
    opened += 1
    let observer = Observer(name: "screen \(opened)")
    bus.observers.append(observer)
    if cachesPerRun {
      caches.append(ImageCache())
      if caches.count > 3 { caches.removeFirst() }
    }
    if removesObservers { bus.observers.removeAll { $0 === observer } }
  }
}

// MARK: - Failure messages, compared whole

/// The messages of the issues a `withKnownIssue` matcher saw, to compare them whole with a golden file
/// after the block (recording an issue inside the matcher would be matched itself).
///
/// Messages are compared as they are, not normalised: the only durations in them are the timeouts the
/// tests pass, and they hold no addresses. Were a volatile part ever added, normalise it in `text`.
final class SeenIssues: Sendable {
  private let messages = Mutex<[String]>([])

  /// Remembers `issue`'s message and returns `true`, so that it can end a matcher's `&&` chain.
  func see(_ issue: Issue) -> Bool {
    let message = issue.comments.map(\.rawValue).joined(separator: "\n")
    messages.withLock { $0.append(message) }
    return true
  }

  /// Every message seen, in order, separated by a line of dashes.
  var text: String { messages.withLock { $0.joined(separator: "\n-----\n") } }
}

// MARK: - XCTest failures

/// A failure XCTest recorded while a test captured them.
struct RecordedFailure {
  var description: String
  var file: String
  var line: Int
}

/// An `XCTestCase` that can capture its failures to check them instead of failing.
class FailureCapturingTestCase: XCTestCase {
  var recorded: [RecordedFailure] = []
  var capturing = false

  override func recordFailure(
    withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
  ) {
    if capturing {
      recorded.append(RecordedFailure(description: description, file: filePath, line: lineNumber))
    } else {
      super.recordFailure(
        withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }
  }

  /// Runs `body` and returns the failures it recorded.
  func failures(in body: () throws -> Void) rethrows -> [RecordedFailure] {
    capturing = true
    recorded = []
    defer { capturing = false }
    try body()
    return recorded
  }

  /// Runs `body` and returns the failures it recorded.
  func failures(in body: () async throws -> Void) async rethrows -> [RecordedFailure] {
    capturing = true
    recorded = []
    defer { capturing = false }
    try await body()
    return recorded
  }
}

// MARK: - Released later, elsewhere

/// An object a detached piece of work holds for a moment.
final class Token: Sendable {
  let id: Int
  init(id: Int) { self.id = id }
}

/// The leaking samples whose root is in the cycle (their messages are golden files named after them).
let leakingSamples = ["retain-cycle", "lazy-closure", "method-reference", "observer-token"]

/// Samples without a cycle.
let cleanSamples = [
  "viper-module-fixed", "lazy-closure-fixed", "method-reference-fixed", "delegate", "greeter",
]

// MARK: - Closures kept on purpose

/// Keeps the handler of each of its last three runs: closure contexts that grow up to a bound.
final class BoundedHandlers {
  var handlers: [() -> Int] = []
  private var runs = 0

  func run() {
    runs += 1
    let run = runs
    let box = Box(runs)
    handlers.append { run + box.value }
    if handlers.count > 3 { handlers.removeFirst() }
  }

  /// What a handler captures with an `Int` (two captures: each closure has a context of its own).
  final class Box {
    let value: Int
    init(_ value: Int) { self.value = value }
  }
}

// MARK: - A growing holder with closures

/// A flow that stores a closure (its context captures `step`).
final class Flow {
  let onFinish: () -> Int
  init(step: Int) { onFinish = { step + 1 } }
}

/// Starts a flow per run and never removes the finished ones.
final class Flows {
  var running: [Flow] = []

  func start() { running.append(Flow(step: running.count)) }
}
