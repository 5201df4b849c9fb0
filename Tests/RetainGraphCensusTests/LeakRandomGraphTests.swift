import Foundation
import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Testing

@testable import RetainGraphCensus

extension CensusTests {
  /// `HeapCensus.leaks()` against an independent computation (issue 31.1): on random graphs of
  /// `LeakRandomNode`s, some held from outside (a local array, `Unmanaged.passRetained`, C
  /// storage), the garbage the count finds equals the nodes a brute-force reachability from the
  /// outside-held ones does not reach.
  @Suite(.heapCensus) struct LeakRandomGraphs {
    /// A random graph, built and then let go but for its outside holders.
    struct Planted {
      var held: [LeakRandomNode]
      var unmanaged: [Unmanaged<LeakRandomNode>]
      var cStorage: UnsafeMutablePointer<LeakRandomNode>
      var probes: [Weak]
      var addresses: [UInt]
      var successors: [[Int]]
      var roots: Set<Int>

      /// How many nodes an outside holder reaches.
      var aliveCount: Int {
        var alive = roots
        var stack = Array(roots)
        while let node = stack.popLast() {
          for target in successors[node] where alive.insert(target).inserted { stack.append(target) }
        }
        return alive.count
      }

      /// The nodes no outside holder reaches that stay alive: what is left of them once those
      /// nothing refers to are freed, in turn (as the runtime frees them).
      var expectedGarbage: Set<Int> {
        var alive = roots
        var stack = Array(roots)
        while let node = stack.popLast() {
          for target in successors[node] where alive.insert(target).inserted { stack.append(target) }
        }
        var garbage = Set(successors.indices).subtracting(alive)
        var holders = [Int](repeating: 0, count: successors.count)
        for node in garbage { for target in successors[node] { holders[target] += 1 } }
        var freed = garbage.filter { holders[$0] == 0 }
        while let node = freed.popFirst() {
          garbage.remove(node)
          for target in successors[node] {
            holders[target] -= 1
            if holders[target] == 0, garbage.contains(target) { freed.insert(target) }
          }
        }
        return garbage
      }
    }

    final class Weak {
      weak var node: LeakRandomNode?
      init(_ node: LeakRandomNode) { self.node = node }
    }

    static func plant(count: Int, seed: UInt64) -> Planted {
      var random = SplitMix64(seed: seed)
      let nodes = (0..<count).map { _ in LeakRandomNode() }
      var successors = [[Int]](repeating: [], count: count)
      for (index, node) in nodes.enumerated() {
        if Int.random(in: 0..<10, using: &random) < 5 {
          let target = Int.random(in: 0..<count, using: &random)
          node.first = nodes[target]
          successors[index].append(target)
        }
        if Int.random(in: 0..<10, using: &random) < 3 {
          let target = Int.random(in: 0..<count, using: &random)
          node.second = nodes[target]
          successors[index].append(target)
        }
        for _ in 0..<Int.random(in: 0..<3, using: &random) where Int.random(in: 0..<10, using: &random) < 4 {
          let target = Int.random(in: 0..<count, using: &random)
          node.more.append(nodes[target])
          successors[index].append(target)
        }
      }
      var roots: [Int] = (0..<4).map { _ in Int.random(in: 0..<count, using: &random) }
      let unmanagedRoots = (0..<2).map { _ in Int.random(in: 0..<count, using: &random) }
      let cRoot = Int.random(in: 0..<count, using: &random)
      let cStorage = UnsafeMutablePointer<LeakRandomNode>.allocate(capacity: 1)
      cStorage.initialize(to: nodes[cRoot])
      roots += unmanagedRoots + [cRoot]
      return Planted(
        held: roots.prefix(4).map { nodes[$0] },
        unmanaged: unmanagedRoots.map { Unmanaged.passRetained(nodes[$0]) },
        cStorage: cStorage, probes: nodes.map(Weak.init),
        addresses: nodes.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) },
        successors: successors, roots: Set(roots))
    }

    @Test(arguments: 0..<12)
    func theGarbageIsWhatNoOutsideHolderReaches(seed: UInt64) throws {
      var planted = Self.plant(count: 40, seed: 0x5EED_0000 + seed)
      defer {
        for probe in planted.probes {
          probe.node?.first = nil
          probe.node?.second = nil
          probe.node?.more = []
        }
        for reference in planted.unmanaged { reference.release() }
        planted.cStorage.deinitialize(count: 1)
        planted.cStorage.deallocate()
        planted.held = []
      }
      let garbage = Set(try HeapCensus.garbageAddresses())
      let found = Set(planted.addresses.indices.filter { garbage.contains(planted.addresses[$0]) })
      #expect(found == planted.expectedGarbage)
      // The runtime agrees: exactly the garbage is still alive among the nodes no holder reaches.
      #expect(found.allSatisfy { planted.probes[$0].node != nil })
      let freed = Set(planted.probes.indices.filter { planted.probes[$0].node == nil })
      #expect(
        freed.isDisjoint(with: found)
          && freed.count + found.count + planted.aliveCount == planted.probes.count)
      withExtendedLifetime(planted.held) {}
    }
  }
}
