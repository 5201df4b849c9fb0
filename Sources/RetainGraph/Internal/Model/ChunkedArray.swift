/// An append-only array stored in fixed-size chunks: growing it never copies what it holds, so a
/// million-edge graph does not need its edges twice in memory while the array grows.
struct ChunkedArray<Element>: RandomAccessCollection {
  private static var chunkShift: Int { 16 }
  private static var chunkSize: Int { 1 << chunkShift }
  private var chunks: [[Element]] = []
  private(set) var count = 0

  init() {}

  var startIndex: Int { 0 }
  var endIndex: Int { count }

  subscript(position: Int) -> Element {
    get { chunks[position >> Self.chunkShift][position & (Self.chunkSize - 1)] }
    set { chunks[position >> Self.chunkShift][position & (Self.chunkSize - 1)] = newValue }
  }

  mutating func append(_ element: Element) {
    // The first chunk grows like an array, so that small graphs stay small; later ones are made
    // whole, so that growing never copies (nor frees memory the allocator would keep resident).
    if count & (Self.chunkSize - 1) == 0 {
      var chunk: [Element] = []
      if !chunks.isEmpty { chunk.reserveCapacity(Self.chunkSize) }
      chunks.append(chunk)
    }
    // Through the chunks' buffer: the array of chunks is checked for uniqueness once, not again
    // when the last chunk is written back.
    chunks.withUnsafeMutableBufferPointer { chunks in chunks[chunks.count - 1].append(element) }
    count += 1
  }
}

extension ChunkedArray: Sendable where Element: Sendable {}
