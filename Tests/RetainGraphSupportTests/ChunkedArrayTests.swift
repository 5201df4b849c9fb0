import RetainGraphSupport
import Testing

/// `ChunkedArray` keeps its chunks as memory of its own (a first chunk that doubles, then whole
/// chunks of 65,536), shared between copies until one is changed. Checked against `Array` across
/// the first chunk's growth and the chunk boundaries, and for copy on write in both directions.
@Suite struct ChunkedArrayTests {
  /// Past two chunk boundaries (65,536 and 131,072), with the first chunk grown from empty.
  private static let count = 140_000

  private static func filled(_ count: Int) -> ChunkedArray<UInt> {
    var array = ChunkedArray<UInt>()
    for value in 0..<count { array.append(UInt(value) &* 2_654_435_761) }
    return array
  }

  @Test func appendedElementsReadBackInOrder() {
    let array = Self.filled(Self.count)
    let expected = (0..<Self.count).map { UInt($0) &* 2_654_435_761 }
    #expect(array.count == Self.count)
    #expect(Array(array) == expected)
    #expect(array[65_535] == expected[65_535] && array[65_536] == expected[65_536])
    #expect(array[Self.count - 1] == expected[Self.count - 1])
  }

  @Test func aCopyKeepsItsElementsWhenTheOriginalChanges() {
    for count in [0, 1, 16, 17, 65_536, 65_537, Self.count] {
      var original = Self.filled(count)
      let copy = original
      original.append(7)
      if count > 0 { original[0] = 99 }
      if count > 65_536 { original[65_536] = 98 }
      #expect(copy.count == count)
      #expect(Array(copy) == Array(Self.filled(count)))
      #expect(original.count == count + 1)
      #expect(original[count] == 7)
      if count > 0 { #expect(original[0] == 99) }
      if count > 65_536 { #expect(original[65_536] == 98) }
    }
  }

  @Test func theOriginalKeepsItsElementsWhenACopyChanges() {
    let original = Self.filled(Self.count)
    var copy = original
    copy[65_536] = 1
    for value in 0..<70_000 { copy.append(UInt(value)) }
    #expect(Array(original) == Array(Self.filled(Self.count)))
    #expect(copy.count == Self.count + 70_000)
    #expect(copy[65_536] == 1)
    #expect(copy[Self.count + 69_999] == 69_999)
  }

  /// A struct of several fields (as the graph's compact edges are) keeps each of them across a
  /// chunk boundary.
  @Test func aStructKeepsItsFieldsAcrossChunks() {
    struct Pair: Equatable { var from: Int32, to: Int32, flag: Bool }
    var pairs = ChunkedArray<Pair>()
    for index in 0..<70_000 {
      pairs.append(Pair(from: Int32(index), to: Int32(index + 1), flag: index % 3 == 0))
    }
    #expect(pairs.count == 70_000)
    for index in [0, 1, 65_535, 65_536, 69_999] {
      #expect(pairs[index] == Pair(from: Int32(index), to: Int32(index + 1), flag: index % 3 == 0))
    }
  }
}
