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
    // A chunk grows like an array (so small graphs stay small) up to the chunk size; growing copies
    // at most one chunk.
    if count & (Self.chunkSize - 1) == 0 { chunks.append([]) }
    chunks[chunks.count - 1].append(element)
    count += 1
  }
}

extension ChunkedArray: Sendable where Element: Sendable {}
