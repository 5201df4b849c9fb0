import RetainGraphRuntime
import Testing

/// The raw runtime reads check their own layout assumptions; these tests make sure the checks pass
/// on this toolchain, so that the fast paths are really taken.
@Suite("Runtime layouts")
struct RuntimeLayoutTests {
  #if os(Linux)
    @Test func weakReferencesCanBePeekedAt() {
      #expect(WeakPeek.isAvailable)
    }
  #endif

  @Test func peekedWeakTargetIsTheObjectOrNil() {
    final class Target {}
    final class Holder {
      weak var target: Target?
    }
    let holder = Holder()
    let target = Target()
    holder.target = target
    let field = UnsafeRawPointer(Unmanaged.passUnretained(holder).toOpaque()) + 16
    #expect(WeakPeek.liveTarget(at: field) == UInt(bitPattern: Unmanaged.passUnretained(target).toOpaque()))
    withExtendedLifetime(target) {}
    holder.target = nil
    #expect(WeakPeek.liveTarget(at: field) == nil)
  }

  @Test func fieldsKnowTheirOwnership() {
    final class Other {}
    final class Fields {
      weak var weak: Other?
      unowned var unowned: Other
      unowned(unsafe) var unsafe: Other
      var strong: Other?
      init(_ other: Other) {
        unowned = other
        unsafe = other
      }
    }
    let fields = FieldLayout.storedFields(of: Fields.self) ?? []
    #expect(fields.map(\.name) == ["weak", "unowned", "unsafe", "strong"])
    #expect(
      fields.map(\.storage) == [
        .reference(.weak), .reference(.unowned), .reference(.unownedUnsafe), .strong,
      ])
  }
}
