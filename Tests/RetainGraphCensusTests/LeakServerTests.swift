import Foundation
import RetainGraph
import RetainGraphTesting
import Testing

@testable import RetainGraphCensus

extension CensusTests {
  /// A server-like fixture with planted cycles and no root given (issue 31.1): every cycle is
  /// reported with its fix, and the fixed twins report none; weak probes show the runtime keeps the
  /// leaked ones, and frees the twins.
  @Suite(.heapCensus) struct LeakServer {
    final class Probe {
      weak var object: AnyObject?
      init(_ object: AnyObject) { self.object = object }
    }

    /// Builds the four parts (leaky or fixed) and lets them go; probes on each part's owner.
    static func build(weakly: Bool) async -> [String: Probe] {
      let registry = LeakServerRegistry()
      await registry.add(1, weakly: weakly)
      let app = LeakServerApp(weakly: weakly)
      let service = LeakServerService(weakly: weakly)
      let consumer = LeakServerConsumer(weakly: weakly)
      return [
        "LeakServerRegistry": Probe(registry), "LeakServerApp": Probe(app),
        "LeakServerService": Probe(service),
        "LeakServerConsumer": Probe(consumer),
      ]
    }

    @Test func everyPlantedCycleIsReportedWithItsFixAndTheFixedTwinsAreNot() async throws {
      let mark = HeapCensus.mark()
      let leaky = await Self.build(weakly: false)
      let fixed = await Self.build(weakly: true)
      defer {
        (leaky["LeakServerApp"]?.object as? LeakServerApp)?.router.routes = [:]
        (leaky["LeakServerService"]?.object as? LeakServerService)?.logger.metadataProvider = { [:] }
        (leaky["LeakServerConsumer"]?.object as? LeakServerConsumer)?.stream.onElement = nil
      }
      let report = try HeapCensus.leaks(since: mark)
      for (type, probe) in leaky.sorted(by: { $0.key < $1.key }) {
        #expect(probe.object != nil, "\(type): the runtime keeps it")
        let found = report.leaks(involving: type)
        #expect(found.count == 1, "\(type)\n\(report)")
        #expect(found.first.map { !$0.fixes.isEmpty } == true, "\(type): a fix")
      }
      for (type, probe) in fixed { #expect(probe.object == nil, "\(type)'s twin is freed") }
      if let registry = leaky["LeakServerRegistry"]?.object as? LeakServerRegistry {
        await registry.clear()
      }
    }
  }
}

extension LeakServerRegistry {
  func clear() { connections = [:] }
}
