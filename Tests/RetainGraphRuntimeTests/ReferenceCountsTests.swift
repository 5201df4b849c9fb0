import RetainGraphRuntime
import Testing

/// The runtime's reference counts of an object, read without retaining it, against the references
/// the test holds; and non-strong references loaded as the runtime loads them.
@Suite("Reference counts")
struct ReferenceCountsTests {
  final class Counted {}
  final class Holder {
    weak var weak: Counted?
    unowned var unowned: Counted
    init(_ counted: Counted) { unowned = counted }
  }

  /// The counts of `object`, read through an unretained address (no conversion to `AnyObject`
  /// that an unoptimised build would retain for the call).
  static func counts(_ address: UnsafeRawPointer) -> ReferenceCounts {
    ReferenceCounts(ofObjectAt: address)
  }

  /// What `after` counts more than `before`. The tests compare differences, not totals: every test
  /// target runs in one process, and a heap census started by another suite holds an `unowned`
  /// reference to each object allocated while it runs (and a heap-wide audit retains objects).
  static func added(_ before: ReferenceCounts, _ after: ReferenceCounts) -> ReferenceCounts {
    ReferenceCounts(
      strong: after.strong - before.strong, weak: after.weak - before.weak,
      unowned: after.unowned - before.unowned)
  }

  @Test(arguments: [1, 2, 5, 40])
  func strongCountIsTheReferencesHeld(extra: Int) {
    let object = Counted()
    let address = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    let before = Self.counts(address)
    let held = Array(repeating: object, count: extra)  // one array holds `extra` references
    let during = Self.counts(address)
    #expect(Self.added(before, during) == ReferenceCounts(strong: extra, weak: 0, unowned: 0))
    withExtendedLifetime(held) {}
    withExtendedLifetime(object) {}
  }

  @Test func weakAndUnownedReferencesAreCountedApart() {
    let object = Counted()
    let address = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    let before = Self.counts(address)
    let holders = (0..<3).map { _ in Holder(object) }
    for holder in holders.prefix(2) { holder.weak = object }
    #expect(Self.added(before, Self.counts(address)) == ReferenceCounts(strong: 0, weak: 2, unowned: 3))
    holders[0].weak = nil
    #expect(Self.added(before, Self.counts(address)) == ReferenceCounts(strong: 0, weak: 1, unowned: 3))
    withExtendedLifetime(holders) {}
    withExtendedLifetime(object) {}
  }

  @Test func nonStrongReferencesLoadTheirObjectOrSayItIsGone() throws {
    var object: Counted? = Counted()
    let holder = Holder(object!)
    holder.weak = object
    let base = UnsafeRawPointer(Unmanaged.passUnretained(holder).toOpaque())
    let fields = try #require(FieldLayout.storedFields(of: Holder.self))
    let weakField = try #require(fields.first { $0.name == "weak" })
    let unownedField = try #require(fields.first { $0.name == "unowned" })
    do {
      // The loads retain: each loaded object is released at the end of this scope.
      guard case .alive(let loaded) = ReferenceLoader.load(.weak, at: base + weakField.offset) else {
        Issue.record("a weak reference to a live object did not load it")
        return
      }
      let weakTarget = loaded.takeRetainedValue()
      #expect(ObjectIdentifier(weakTarget) == ObjectIdentifier(holder.unowned))
      guard case .alive(let retained) = ReferenceLoader.load(.unowned, at: base + unownedField.offset) else {
        Issue.record("an unowned reference to a live object did not load it")
        return
      }
      let unownedTarget = retained.takeRetainedValue()
      #expect(ObjectIdentifier(unownedTarget) == ObjectIdentifier(weakTarget))
    }
    weak let probe = object
    object = nil
    let released = probe == nil
    #expect(released)
    guard case .none = ReferenceLoader.load(.weak, at: base + weakField.offset) else {
      Issue.record("a weak reference to a released object loaded something")
      return
    }
    guard case .dangling = ReferenceLoader.load(.unowned, at: base + unownedField.offset) else {
      Issue.record("an unowned reference to a deinitialised object was not dangling")
      return
    }
    withExtendedLifetime(holder) {}
  }
}
