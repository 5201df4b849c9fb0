import Foundation

// Planted cycles for `HeapCensus.leaks()` (LeakCountTests), each with the twin that must not be
// reported. Every maker returns a weak probe; the cycle's objects are then held only by each other.

final class LeakParent: @unchecked Sendable {
  var child: LeakChild?
  var name = "parent"
}

final class LeakChild: @unchecked Sendable {
  var parent: LeakParent?
  var keeps: LeakList?
}

/// A closure capturing only `self`: the closure's context is the object itself.
final class LeakHandlerOwner {
  var handler: (() -> Void)?
  var runs = 0
  func start() { handler = { self.runs += 1 } }
}

/// A closure capturing `self` and a value: a closure context of its own.
final class LeakContextOwner {
  var handler: ((Int) -> Int)?
  var total = 0
  func start(step: Int) {
    handler = {
      self.total += step + $0; return self.total
    }
  }
}

/// A cycle through an array's buffer.
final class LeakList {
  var items: [LeakListItem] = []
}

final class LeakListItem {
  var list: LeakList?
}

/// An element of one reference that is not itself an object: an array of them is read with
/// `Mirror`, and each element's reference is checked against the storage's words.
struct LeakSlot {
  let item: LeakSlotItem
}

final class LeakSlotItem {}

/// A cycle through a dictionary's storage.
final class LeakRegistry {
  var entries: [String: LeakRegistryEntry] = [:]
}

final class LeakRegistryEntry {
  var registry: LeakRegistry?
}

/// A back reference that does not retain: no cycle.
final class LeakUnsafeParent {
  var child: LeakUnsafeChild?
}

final class LeakUnsafeChild {
  unowned(unsafe) var parent: LeakUnsafeParent
  init(parent: LeakUnsafeParent) { self.parent = parent }
}

/// A random graph's node: references in direct fields and in an array.
final class LeakRandomNode {
  var first: LeakRandomNode?
  var second: LeakRandomNode?
  var more: [LeakRandomNode] = []
}

/// A parent ↔ child cycle; returns the parent (the caller drops it to leak the pair). Not inlined, so
/// that a call stack names it in release builds too.
@inline(never)
func makeLeakPair() -> LeakParent {
  let parent = LeakParent()
  let child = LeakChild()
  parent.child = child
  child.parent = parent
  return parent
}

nonisolated(unsafe) var leakGlobalParent: LeakParent?

/// A value too large for an existential's inline buffer: stored in a box the runtime allocates.
struct LeakLargePayload {
  var numbers = (1, 2, 3, 4)
  var owner: LeakBoxingOwner?
}

/// Holds its cycle's back reference inside an `Any`'s box, which the census does not record.
final class LeakBoxingOwner {
  var payload: Any?
}
