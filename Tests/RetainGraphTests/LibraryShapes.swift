import RetainGraph
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

// Self-contained reproductions of how real libraries hold references (issue "See every reference
// real libraries hold"). Each scenario builds an app object in a cycle through the library shape,
// returns it as the root, and can break the cycle afterwards.

// MARK: - A struct whose custom mirror hides its stored references (reactive operators' `Inner`)

final class ReactiveSubject {
  var conduits: [ReactiveConduit] = []
}

final class ReactiveConduit {
  weak var parent: ReactiveSubject?
  var inner: MapInner?
  init(parent: ReactiveSubject, inner: MapInner) {
    self.parent = parent
    self.inner = inner
  }
}

/// Like OpenCombine's `Map.Inner`: its mirror shows nothing of the downstream it holds.
struct MapInner: CustomReflectable {
  let downstream: AssignSink
  let transform: (Int) -> Int
  var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// An enum with a custom mirror that hides its payload.
enum HiddenPayload: CustomReflectable {
  case idle
  case running(AssignSink)
  var customMirror: Mirror { Mirror(self, children: [:]) }
}

final class AssignSink {
  var object: CustomMirrorViewModel?
  init(object: CustomMirrorViewModel) { self.object = object }
}

final class CustomMirrorViewModel {
  let subject = ReactiveSubject()
  var state: HiddenPayload = .idle
  var value = 0

  static func make() -> CustomMirrorViewModel {
    let model = CustomMirrorViewModel()
    let sink = AssignSink(object: model)
    model.subject.conduits.append(
      ReactiveConduit(parent: model.subject, inner: MapInner(downstream: sink, transform: { $0 * 2 })))
    return model
  }

  static func makeWithHiddenEnum() -> CustomMirrorViewModel {
    let model = CustomMirrorViewModel()
    model.state = .running(AssignSink(object: model))
    return model
  }
}

// MARK: - A Mutex-guarded array of closures that capture self

final class MutexStore: Sendable {
  let observers = Mutex<[@Sendable () -> Void]>([])
  func observe(_ observer: @escaping @Sendable () -> Void) { observers.withLock { $0.append(observer) } }
}

final class MutexViewModel: @unchecked Sendable {
  let store = MutexStore()
  var refreshes = 0

  static func make() -> MutexViewModel {
    let model = MutexViewModel()
    model.store.observe { model.refreshes += 1 }
    return model
  }

  func breakCycle() { store.observers.withLock { $0.removeAll() } }
}

/// A lock-plus-value class in the style of swift-nio's `NIOLockedValueBox`: a `ManagedBuffer`
/// whose header is the value and whose tail-allocated element is the lock.
final class LockedValueBox<Value>: ManagedBuffer<Value, pthread_mutex_t> {
  static func make(_ value: Value) -> LockedValueBox<Value> {
    let buffer = create(minimumCapacity: 1) { _ in value }
    _ = buffer.withUnsafeMutablePointerToElements { pthread_mutex_init($0, nil) }
    return unsafeDowncast(buffer, to: LockedValueBox<Value>.self)
  }
  deinit { withUnsafeMutablePointerToElements { _ = pthread_mutex_destroy($0) } }
}

final class LockedBoxViewModel {
  var box: LockedValueBox<[() -> Void]>?
  var refreshes = 0

  static func make() -> LockedBoxViewModel {
    let model = LockedBoxViewModel()
    model.box = .make([{ model.refreshes += 1 }])
    return model
  }
}

// MARK: - Closure contexts with witness tables and generic methods

protocol Cancellable {
  func cancel()
}

/// Type-erases a cancellable the way reactive libraries do: the closure's generic environment holds
/// the witness table of `C: Cancellable` as well as `C`'s metadata.
final class AnyCancellableBox {
  private let cancelAction: () -> Void
  init<C: Cancellable>(_ cancellable: C) { cancelAction = cancellable.cancel }
  func cancel() { cancelAction() }
}

final class Subscription: Cancellable {
  var onValue: (() -> Void)?
  init(onValue: @escaping () -> Void) { self.onValue = onValue }
  func cancel() { onValue = nil }
}

final class CancellableViewModel {
  var cancellables: [AnyCancellableBox] = []
  var updates = 0

  static func make() -> CancellableViewModel {
    let model = CancellableViewModel()
    let subscription = Subscription { model.updates += 1 }
    model.cancellables.append(AnyCancellableBox(subscription))
    return model
  }
}

/// A generic store whose subscribe method makes a multi-capture `[weak self]` closure.
final class GenericStore<State> {
  var state: State
  var subscribers: [Int: (State) -> Void] = [:]
  private var nextID = 0
  init(state: State) { self.state = state }

  func subscribe(_ subscriber: @escaping (State) -> Void) -> StoreToken {
    let id = nextID
    nextID += 1
    subscribers[id] = subscriber
    return StoreToken { [weak self] in self?.subscribers[id] = nil }
  }

  /// A closure made in a generic method of a generic class: its captures' types mention parameters
  /// of two depths (`State`, then `T`).
  func observe<T>(_ transform: @escaping (State) -> T, _ sink: @escaping (T) -> Void) -> StoreToken {
    StoreToken { [weak self] in
      guard let self else { return }
      sink(transform(self.state))
    }
  }
}

final class StoreToken {
  let cancel: () -> Void
  init(cancel: @escaping () -> Void) { self.cancel = cancel }
}

final class StoreViewModel {
  let store = GenericStore(state: 0)
  var token: StoreToken?
  var seen = 0
  var label = ""

  static func make() -> StoreViewModel {
    let model = StoreViewModel()
    model.token = model.store.subscribe { model.seen = $0 }
    return model
  }

  /// The token's closure captures a sink that captures the model strongly.
  static func makeObserving() -> StoreViewModel {
    let model = StoreViewModel()
    model.token = model.store.observe({ "\($0)" }, { model.label = $0 })
    return model
  }
}

// MARK: - Constrained existentials (`any P<Int>`)

protocol Handler<Input> {
  associatedtype Input
  func handle(_ input: Input)
}

struct ClosureHandler<Input>: Handler {
  let body: (Input) -> Void
  func handle(_ input: Input) { body(input) }
}

/// Like Hummingbird's router: handlers kept as `any HTTPResponder<Context>`.
final class Router {
  var handlers: [String: any Handler<Int>] = [:]
  var fallback: (any Handler<Int>)?
}

final class RouterApp {
  let router = Router()
  var hits = 0

  static func make() -> RouterApp {
    let app = RouterApp()
    app.router.handlers["/count"] = ClosureHandler<Int> { app.hits += $0 }
    return app
  }

  static func makeWithFallback() -> RouterApp {
    let app = RouterApp()
    app.router.fallback = ClosureHandler<Int> { app.hits += $0 }
    return app
  }
}

/// A class-bound constrained existential.
protocol ObjectHandler<Input>: AnyObject {
  associatedtype Input
}

final class ObjectHandlerImpl: ObjectHandler {
  typealias Input = Int
  var app: ObjectRouterApp?
}

final class ObjectRouterApp {
  var handler: (any ObjectHandler<Int>)?

  static func make() -> ObjectRouterApp {
    let app = ObjectRouterApp()
    let handler = ObjectHandlerImpl()
    handler.app = app
    app.handler = handler
    return app
  }
}

// MARK: - A method reference stored as a callback

final class PriceService {
  var pending: [(Int) -> Void] = []
  func load(completion: @escaping (Int) -> Void) { pending.append(completion) }
}

final class PricesViewModel {
  let service = PriceService()
  var prices: [Int] = []

  static func make() -> PricesViewModel {
    let model = PricesViewModel()
    model.service.load(completion: model.handlePrices)
    return model
  }

  func handlePrices(_ price: Int) { prices.append(price) }
}

// MARK: - One holder per value shape, each holding a `ShapeLeaf`

final class ShapeLeaf: @unchecked Sendable {}

protocol ShapeProtocol {}
struct ShapeStruct: ShapeProtocol { let leaf = ShapeLeaf() }
protocol ClassShape: AnyObject {}
extension ShapeLeaf: ClassShape {}
enum ShapeEnum {
  case empty
  case holding(ShapeLeaf)
}
indirect enum ShapeList {
  case end(ShapeLeaf)
  case next(ShapeList)
}
struct ShapeError: Error { let leaf = ShapeLeaf() }

/// A noncopyable struct, stored in a class.
struct ShapeToken: ~Copyable { let leaf = ShapeLeaf() }

final class ShapeBuffer: ManagedBuffer<Int, ShapeLeaf> {}

/// Every way a value can hold an object, one per holder: the walk must reach the object or say
/// in a note what it could not read.
enum ShapeHolders {
  final class Direct { let value = ShapeLeaf() }
  final class InStruct { let value = ShapeStruct() }
  final class InEnum { let value = ShapeEnum.holding(ShapeLeaf()) }
  final class InIndirectEnum { let value = ShapeList.next(.end(ShapeLeaf())) }
  final class InOptional { let value: ShapeLeaf? = ShapeLeaf() }
  final class InTuple { let value = (1, ShapeLeaf()) }
  final class InClosure {
    let value: () -> Void
    init() {
      let leaf = ShapeLeaf()
      let other = ShapeLeaf()
      value = { _ = (leaf, other) }
    }
  }
  final class InAny { let value: Any = ShapeLeaf() }
  final class InAnyStruct { let value: Any = ShapeStruct() }
  final class InProtocol { let value: any ShapeProtocol = ShapeStruct() }
  final class InAnyObject { let value: AnyObject = ShapeLeaf() }
  final class InClassProtocol { let value: any ClassShape = ShapeLeaf() }
  final class InConstrained {
    let value: any Handler<Int> = ClosureHandler<Int> { [leaf = ShapeLeaf()] _ in _ = leaf }
  }
  final class InError { let value: any Error = ShapeError() }
  final class InArray { let value = [ShapeLeaf()] }
  final class InDictionary { let value = ["a": ShapeLeaf()] }
  final class InSet { let value: Set<ObjectIdentifier> = []; let leaves = [ShapeLeaf()] }
  final class InMutex { let value = Mutex<ShapeLeaf?>(ShapeLeaf()) }
  final class InNoncopyable { let value = ShapeToken() }
  final class InCustomMirror {
    let value = MapInner(downstream: AssignSink(object: CustomMirrorViewModel()), transform: { $0 })
  }
  final class InManagedBuffer {
    let value = ShapeBuffer.create(minimumCapacity: 1) { _ in 0 }
    init() { value.withUnsafeMutablePointerToElements { $0.initialize(to: ShapeLeaf()) } }
  }

  static let all:
    [(name: String, make: @Sendable () -> AnyObject, reached: @Sendable (ObjectGraph) -> Bool)] = [
      ("class field", { Direct() }, leafReached),
      ("struct", { InStruct() }, leafReached),
      ("enum payload", { InEnum() }, leafReached),
      ("indirect enum", { InIndirectEnum() }, leafReached),
      ("optional", { InOptional() }, leafReached),
      ("tuple", { InTuple() }, leafReached),
      ("closure", { InClosure() }, leafReached),
      ("Any holding an object", { InAny() }, leafReached),
      ("Any holding a struct", { InAnyStruct() }, leafReached),
      ("any P", { InProtocol() }, leafReached),
      ("AnyObject", { InAnyObject() }, leafReached),
      ("any P: AnyObject", { InClassProtocol() }, leafReached),
      ("any P<Int>", { InConstrained() }, leafReached),
      ("any Error", { InError() }, leafReached),
      ("array", { InArray() }, leafReached),
      ("dictionary", { InDictionary() }, leafReached),
      ("Mutex", { InMutex() }, leafReached),
      ("noncopyable struct", { InNoncopyable() }, leafReached),
      ("custom mirror", { InCustomMirror() }, { $0.nodes.contains { $0.shortTypeName == "AssignSink" } }),
      ("ManagedBuffer elements", { InManagedBuffer() }, leafReached),
    ]

  static func leafReached(_ graph: ObjectGraph) -> Bool {
    graph.nodes.contains { $0.shortTypeName == "ShapeLeaf" }
  }
}
