import Foundation
import RetainGraph
import RetainGraphTesting
import Samples
import Testing

@testable import RetainGraphCensus

extension CensusTests {
  /// `HeapCensus.leaks()` on every sample (issue 31.1), with no root given: once the sample's root
  /// is let go, the objects the count finds garbage are those the runtime keeps alive (weak probes)
  /// that no outside holder keeps; a sample with a cycle leaks, its fixed twin does not.
  @Suite(.heapCensus) struct LeakSamples {
    final class Probe {
      weak var object: AnyObject?
      init(_ object: AnyObject) { self.object = object }
    }

    @Test(arguments: Sample.all.map(\.name))
    func eachSampleWithACycleLeaksAndItsTwinDoesNot(name: String) throws {
      let sample = try #require(Sample.named(name))
      var probes: [Probe] = []
      var breakCycles: () -> Void = {}
      do {
        let instance = sample.make()
        probes = instance.objects.map(Probe.init)
        breakCycles = instance.cycleBreaker
      }
      defer { breakCycles() }
      let garbage = Set(try HeapCensus.garbageAddresses())
      let leaked = probes.filter { probe in
        probe.object.map { garbage.contains(UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque())) }
          ?? false
      }
      // Garbage is alive: nothing can free it (and the count never calls a freed object garbage).
      #expect(leaked.allSatisfy { $0.object != nil })
      if sample.hasCycle {
        #expect(!leaked.isEmpty, "\(name): no object of its cycle found garbage")
      } else {
        #expect(leaked.isEmpty, "\(name): \(leaked.compactMap { $0.object.map { "\(type(of: $0))" } })")
      }
    }
  }
}
