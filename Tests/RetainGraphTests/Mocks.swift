import Foundation
import RetainGraph

// Shared fixtures for the core tests.

final class Leaf {
  var value = 0
  init() {}
}

final class Holder {
  var leaf: Leaf?
  init(_ leaf: Leaf? = nil) { self.leaf = leaf }
}

protocol Delegate: AnyObject {}
final class DelegateImpl: Delegate {}

final class WeakHolder {
  weak var weakLeaf: Leaf?
  unowned var unownedLeaf: Leaf
  unowned(unsafe) var unsafeLeaf: Leaf
  weak var delegate: (any Delegate)?
  unowned var unownedDelegate: any Delegate
  var strongLeaf: Leaf

  init(_ leaf: Leaf, delegate: any Delegate) {
    weakLeaf = leaf
    unownedLeaf = leaf
    unsafeLeaf = leaf
    self.delegate = delegate
    unownedDelegate = delegate
    strongLeaf = leaf
  }
}

struct WeakPair {
  weak var weak: Leaf?
  unowned var unowned: Leaf
  var strong: Leaf
}

final class StructHolder {
  var pair: WeakPair
  init(_ pair: WeakPair) { self.pair = pair }
}

final class GenericBox<T: AnyObject> {
  weak var weakValue: T?
  var strongValue: T?
  unowned var unownedValue: T
  init(_ value: T) {
    weakValue = value
    strongValue = value
    unownedValue = value
  }
}

class BaseNode {
  var baseLeaf = Leaf()
  weak var baseWeak: Leaf?
}

final class DerivedNode: BaseNode {
  var derivedLeaf = Leaf()
}

enum LoadState {
  case idle
  case loading(Leaf)
  case loaded(Leaf, count: Int)
}

indirect enum LinkedValue {
  case end
  case node(Leaf, LinkedValue)
}

/// An owner an unowned child outlives, in tests of dangling references.
final class OwnerFixture {}

final class UnownedChildFixture {
  unowned let owner: OwnerFixture
  init(owner: OwnerFixture) { self.owner = owner }
}

/// One node of a random graph: three strong, one weak and one unowned slot.
final class RandomNode {
  let index: Int
  var s0: RandomNode?
  var s1: RandomNode?
  var s2: RandomNode?
  weak var w0: RandomNode?
  unowned var u0: RandomNode?
  init(index: Int) { self.index = index }
  func breakStrong() {
    s0 = nil
    s1 = nil
    s2 = nil
  }
}

final class WeakProbe {
  weak var object: AnyObject?
  init(_ object: AnyObject?) { self.object = object }
}

/// A node of a singly linked list, with an iterative teardown so that releasing a long list does
/// not recurse.
final class ListNode {
  var next: ListNode?
  var value: Int
  init(_ value: Int) { self.value = value }

  static func make(count: Int) -> ListNode {
    let head = ListNode(0)
    var tail = head
    for index in 1..<count {
      let node = ListNode(index)
      tail.next = node
      tail = node
    }
    return head
  }

  static func dismantle(_ head: ListNode) {
    var current = head.next
    head.next = nil
    while let node = current {
      current = node.next
      node.next = nil
    }
  }
}

extension ObjectGraph {
  /// Edges as "From.label -> To (ownership)" strings, for readable comparisons.
  var edgeDescriptions: [String] {
    edges.map {
      "\(nodes[$0.from].shortTypeName).\($0.label) -> \(nodes[$0.to].shortTypeName) (\($0.ownership.rawValue))"
    }
  }
}

/// Runs `body` on a thread with a small stack and waits for it without blocking a thread of the
/// concurrency pool (Swift Testing runs tests on that pool; a blocked one starves the others).
func onSmallStack(_ bytes: Int = 512 * 1024, _ body: @escaping @Sendable () -> Void) async {
  await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
    let thread = Thread {
      body()
      done.resume()
    }
    thread.stackSize = bytes
    thread.start()
  }
}

/// A mutable box that a `@Sendable` closure may capture; its users keep to one thread at a time.
final class UncheckedBox<T>: @unchecked Sendable {
  var value: T
  init(_ value: T) { self.value = value }
}

// MARK: - Closures

/// Holds closures in every shape the matrix covers, directly or inside a struct.
final class ClosureHolder {
  var plain: (() -> Void)?
  var asyncPlain: (() async -> Void)?
  var any: Any?
  var array: [() -> Void] = []
  var dictionary: [String: () -> Void] = [:]
  var box = ClosureBox()
  var tag = 0

  func clear() {
    plain = nil
    asyncPlain = nil
    any = nil
    array = []
    dictionary = [:]
    box = ClosureBox()
  }
}

struct ClosureBox {
  var plain: (() -> Void)?
  var asyncPlain: (() async -> Void)?
  var any: Any?
  var array: [() -> Void] = []
  var dictionary: [String: () -> Void] = [:]
}

struct StructWithReference {
  var reference: ClosureHolder
  var number = 1
}

func makeGenericClosure<T>(_ value: T) -> () -> Void { { _ = value } }
func makeGenericPairClosure<T, U>(_ first: T, _ second: [U]) -> () -> Void { { _ = (second, first) } }

enum CaptureStyle: String, CaseIterable, Sendable {
  case none, strong, weak, unowned, mixed, capturedVar, capturedStruct, generic, genericPair, nested, async,
    sendable

  /// A closure that captures `holder` in this style, and whether it retains it.
  func closure(capturing holder: ClosureHolder, leaf: Leaf) -> (
    closure: Any, retains: Bool, ownership: Ownership?
  ) {
    switch self {
    case .none: return ({ () -> Void in }, false, nil)
    case .strong: return ({ () -> Void in _ = holder }, true, .strong)
    case .weak: return ({ [weak holder] () -> Void in _ = holder }, false, .weak)
    case .unowned: return ({ [unowned holder] () -> Void in _ = holder }, false, .unowned)
    case .mixed:
      let number = 3
      return ({ [weak holder] () -> Void in _ = (holder, leaf, number) }, false, .weak)
    case .capturedVar:
      var captured: ClosureHolder? = holder
      return ({ () -> Void in captured = captured ?? nil }, true, .strong)
    case .capturedStruct:
      let value = StructWithReference(reference: holder)
      return ({ () -> Void in _ = value }, true, .strong)
    case .generic: return (makeGenericClosure(holder), true, .strong)
    case .genericPair: return (makeGenericPairClosure(7, [holder]), true, .strong)
    case .nested:
      let inner = { () -> Void in _ = holder }
      return ({ () -> Void in inner() }, true, .strong)
    case .async: return ({ () async -> Void in _ = holder }, true, .strong)
    case .sendable:
      nonisolated(unsafe) let captured = holder
      let number = 7
      let sendable: @Sendable () -> Void = { _ = (captured, number) }
      let stored: () -> Void = sendable
      return (stored, true, .strong)
    }
  }
}

enum ClosureStorage: String, CaseIterable, Sendable {
  case property, any, array, dictionary
}
