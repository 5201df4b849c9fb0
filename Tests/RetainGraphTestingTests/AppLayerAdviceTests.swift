import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Samples
import Testing

/// The app-layer leaks of issue 11: every assertion gives the idiomatic fix, whichever object of the
/// leak it starts from.
@Suite("App-layer leaks: the idiomatic fix in every assertion, from any root")
struct AppLayerAdviceTests {
  static let fixes: [String: [String]] = [
    "coordinator-parent": [
      "fix 1 of 2: make CheckoutCoordinator.parent weak", "fix 2 of 2: make ProfileCoordinator.parent weak",
    ],
    "strong-delegate": ["fix: make PaymentViewController.delegate weak"],
    "store-subscription": [
      "fix: capture `[weak self]` in closure #1 in CartViewModel.init(store:) (stored in Store.subscribers[0])"
    ],
    "network-completion": [
      "fix: method reference PriceList.handlePrices(_:) stored in NetworkService.pending[1]: "
        + "store `{ [weak self] in self?.handlePrices($0) }` instead"
    ],
  ]

  @Test(arguments: fixes.keys.sorted())
  func everyAssertionFromEveryObjectGivesTheFix(_ name: String) throws {
    let sample = try #require(Sample.named(name))
    let expected = try #require(Self.fixes[name])
    let cleanups = Cleanups()
    defer { cleanups.run() }
    // assertNoLeaks on the sample's root: one golden file per sample.
    let leaks = try #require(
      checkNoLeaks(timeout: .milliseconds(100)) {
        let instance = sample.make()
        cleanups.breakers.append(instance.cycleBreaker)
        return instance.root
      }
    ).description
    assertGolden(leaks, named: "no-leaks-\(name)")
    // assertNoCycles and assertDeallocated from each object of the leak.
    let count = sample.make().objects.count
    for index in 0..<count {
      let instance = sample.make()
      defer { instance.breakCycles() }
      let object = instance.objects[index]
      let cycles = try #require(checkNoCycles(object)).description
      for fix in expected { #expect(cycles.contains(fix), "checkNoCycles from \(type(of: object))") }
      let survivor = try #require(
        checkDeallocated(timeout: .milliseconds(50)) {
          let again = sample.make()
          cleanups.breakers.append(again.cycleBreaker)
          return again.objects[index]
        }
      ).description
      for fix in expected { #expect(survivor.contains(fix), "checkDeallocated of \(type(of: object))") }
    }
  }
}

/// Cycle breakers of the samples a test leaked on purpose, run when it ends.
private final class Cleanups {
  var breakers: [() -> Void] = []
  func run() { breakers.forEach { $0() } }
}
