import Foundation
import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Testing

@testable import RetainGraphCensus

// Shapes for the count's fast path (`LeakSearch.WordReading`): some read by their words (class
// references, optionals, arrays of objects, weak and unowned references, inherited and generic
// fields), some left to the walk (structs inline, enums with payloads, closures, existentials,
// dictionaries).

/// Read by its words: strong, optional, array, weak, unowned and unowned(unsafe) references.
final class WordNode {
  var first: WordNode?
  var second: WordNode?
  var list: [WordNode] = []
  weak var back: WordNode?
  unowned(unsafe) var raw: WordNode?
  var number = 0
}

/// Read by its words through a superclass's fields.
class WordBase {
  var inherited: WordNode?
  var inheritedList: [WordBase] = []
}

final class WordSub: WordBase {
  var own: WordBase?
  unowned var keeper: WordKeeper
  init(keeper: WordKeeper) { self.keeper = keeper }
}

/// Holds the objects an `unowned` reference may name for the whole test.
final class WordKeeper {}

/// A generic class: read by its words when its fields are class references.
final class WordBox<Value: AnyObject> {
  var value: Value?
  var values: [Value] = []
}

struct WordPair {
  var left: WordNode?
  var count = 0
  var right: AnyObject?
}

enum WordSlot {
  case empty
  case one(WordNode)
  case two(AnyObject, WordBase)
}

/// Left to the walk: its fields are values, closures, existentials and dictionaries.
final class WordValues {
  var pair = WordPair()
  var slot = WordSlot.empty
  var action: (() -> Void)?
  var anything: Any?
  var table: [String: AnyObject] = [:]
  var optionalPair: WordPair?
}

extension CensusTests {
  /// The count's fast path against the walk (issue 39.2): on random graphs of many shapes, the
  /// count that reads objects by their words finds the same garbage, attributes the same strong
  /// references and explains the same counts as the count that walks every object.
  @Suite(.heapCensus) struct LeakWordReading {
    /// A random graph: every object, what holds some of them from outside, and each object's
    /// fields cleared at the end (so that what leaked is freed).
    struct Planted {
      var held: [AnyObject]
      var keeper: WordKeeper
      var clear: [() -> Void]
    }

    static func plant(count: Int, seed: UInt64) -> Planted {
      var random = SplitMix64(seed: seed)
      let keeper = WordKeeper()
      var objects: [AnyObject] = []
      for _ in 0..<count {
        switch Int.random(in: 0..<6, using: &random) {
        case 0, 1: objects.append(WordNode())
        case 2: objects.append(WordSub(keeper: keeper))
        case 3: objects.append(Int.random(in: 0..<2, using: &random) == 0 ? WordBase() : WordBox<WordNode>())
        case 4: objects.append(WordBox<AnyObject>())
        default: objects.append(WordValues())
        }
      }
      func any() -> AnyObject { objects[Int.random(in: 0..<count, using: &random)] }
      let nodes = objects.compactMap { $0 as? WordNode }
      let bases = objects.compactMap { $0 as? WordBase }
      func node() -> WordNode? {
        nodes.isEmpty ? nil : nodes[Int.random(in: 0..<nodes.count, using: &random)]
      }
      func base() -> WordBase? {
        bases.isEmpty ? nil : bases[Int.random(in: 0..<bases.count, using: &random)]
      }
      func maybe(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
      var clear: [() -> Void] = []
      for object in objects {
        switch object {
        case let object as WordNode:
          if maybe(50) { object.first = node() }
          if maybe(40) { object.second = node() }
          for _ in 0..<Int.random(in: 0..<3, using: &random) {
            if let target = node() { object.list.append(target) }
          }
          if maybe(30) { object.back = node() }
          if maybe(20) { object.raw = node() }
          clear.append { [weak object] in
            object?.first = nil
            object?.second = nil
            object?.list = []
          }
        case let object as WordSub:
          if maybe(50) { object.inherited = node() }
          if maybe(40) { object.own = base() }
          if maybe(40), let target = base() { object.inheritedList = [target, target] }
          clear.append { [weak object] in
            object?.inherited = nil
            object?.own = nil
            object?.inheritedList = []
          }
        case let object as WordBase:
          if maybe(50) { object.inherited = node() }
          if maybe(30), let target = base() { object.inheritedList.append(target) }
          clear.append { [weak object] in
            object?.inherited = nil
            object?.inheritedList = []
          }
        case let object as WordBox<WordNode>:
          if maybe(50) { object.value = node() }
          if maybe(40), let target = node() { object.values = [target] }
          clear.append { [weak object] in
            object?.value = nil
            object?.values = []
          }
        case let object as WordBox<AnyObject>:
          if maybe(50) { object.value = any() }
          if maybe(40) { object.values = [any(), any()] }
          clear.append { [weak object] in
            object?.value = nil
            object?.values = []
          }
        case let object as WordValues:
          if maybe(50) { object.pair = WordPair(left: node(), count: 1, right: maybe(50) ? any() : nil) }
          if maybe(40), let target = node(), let other = base() {
            object.slot = maybe(50) ? .one(target) : .two(any(), other)
          }
          if maybe(40) {
            let captured = any()
            object.action = { _ = captured }
          }
          if maybe(30) { object.anything = maybe(50) ? any() : WordPair(left: node()) }
          if maybe(30) { object.table = ["a": any(), "b": any()] }
          if maybe(30) { object.optionalPair = WordPair(left: node(), right: any()) }
          clear.append { [weak object] in
            object?.pair = WordPair()
            object?.slot = .empty
            object?.action = nil
            object?.anything = nil
            object?.table = [:]
            object?.optionalPair = nil
          }
        default:
          break
        }
      }
      let held = (0..<max(1, count / 8)).map { _ in any() }
      return Planted(held: held, keeper: keeper, clear: clear)
    }

    @Test(arguments: 0..<16)
    func wordsAndTheWalkCountAlike(seed: UInt64) throws {
      var planted = Self.plant(count: 60, seed: 0x3040_0000 + seed)
      defer {
        planted.held = []
        for clear in planted.clear { clear() }
        withExtendedLifetime(planted.keeper) {}
      }
      let (read, differences) = try HeapCensus.wordReadingDifferences()
      #expect(read > 0, "no object was read by its words: the comparison says nothing")
      #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
      withExtendedLifetime(planted.held) {}
    }
  }
}
