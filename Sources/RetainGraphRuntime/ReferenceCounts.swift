// The runtime's reference counts of a live heap object, read without retaining it.

@_silgen_name("swift_retainCount")
private func swiftRetainCount(_ object: UnsafeMutableRawPointer) -> Int

@_silgen_name("swift_weakRetainCount")
private func swiftWeakRetainCount(_ object: UnsafeMutableRawPointer) -> Int

@_silgen_name("swift_unownedRetainCount")
private func swiftUnownedRetainCount(_ object: UnsafeMutableRawPointer) -> Int

/// How many references of each ownership point to a live native heap object, as the runtime counts
/// them (HeapObject.cpp, RefCount.h), measured on this toolchain: `swift_retainCount` is the number
/// of strong references, `swift_weakRetainCount` is 1 + the weak references (1 when the object has
/// no side table), `swift_unownedRetainCount` is 1 (held while the object is strongly alive) + the
/// `unowned` references. `unowned(unsafe)` is not counted.
package struct ReferenceCounts: Equatable, Sendable {
  package var strong: Int
  package var weak: Int
  package var unowned: Int

  package init(strong: Int, weak: Int, unowned: Int) {
    self.strong = strong
    self.weak = weak
    self.unowned = unowned
  }

  /// The counts of the object at `address`, which the caller keeps alive while this runs.
  package init(ofObjectAt address: UnsafeRawPointer) {
    let object = UnsafeMutableRawPointer(mutating: address)
    strong = swiftRetainCount(object)
    weak = swiftWeakRetainCount(object) - 1
    unowned = swiftUnownedRetainCount(object) - 1
  }

  /// The strong count alone of the object at `address` (one runtime call, where ``init(ofObjectAt:)``
  /// makes three), which the caller keeps allocated while this runs.
  package static func strong(ofObjectAt address: UnsafeRawPointer) -> Int {
    swiftRetainCount(UnsafeMutableRawPointer(mutating: address))
  }

  /// The counts of `object`, which the caller keeps alive; the argument is passed at +0, so the
  /// call itself adds nothing.
  @inline(never)
  package init(of object: AnyObject) {
    self.init(ofObjectAt: UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()))
  }
}
