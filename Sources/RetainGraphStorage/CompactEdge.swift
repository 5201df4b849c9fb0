public import RetainGraphSupport

/// An edge in compact form, 12 bytes: its ends, and one word holding the ownership's code (2 bits)
/// and the label: an interned label (28 bits), or an interned label and an element index appended
/// as `[index]` (13 + 16 bits) when both fit, so that a million `items[i]` share one label; or,
/// when they do not fit (`items[70000]`), the position of the pair in its storage's
/// ``WideLabels``. Resolve its label and index through ``WideLabels/resolve(_:)``.
///
/// The ownership is stored as its code: 0 strong, 1 weak, 2 unowned, 3 unowned(unsafe) (the core
/// maps its public `Ownership` to and from the code). The walk makes one edge per reference and
/// the analyses read every edge, so the members are `@inlinable`; the type is `public` for that
/// reason alone (Swift 6.3 inlines `@inlinable` members across modules only for a `public` type).
/// It has no public member, and the module is no product.
public struct CompactEdge: Sendable {
  @usableFromInline package var from: Int32
  @usableFromInline package var to: Int32
  @usableFromInline var word: UInt32

  @inlinable static var indexedFlag: UInt32 { 1 << 2 }
  /// The largest label and index that can be packed together; others need a label of their own.
  @inlinable package static var packedLabelLimit: Int32 { 1 << 13 }
  @inlinable package static var packedIndexLimit: Int32 { 1 << 16 }

  /// Labels from this value up name a pair in ``WideLabels`` (a label and an index that do not
  /// pack together), not an interned label.
  @inlinable package static var wideBase: Int32 { 1 << 28 }

  /// An edge whose label is `label`, with `index` (when ≥ 0) appended, and whose ownership has the
  /// code `ownershipCode` (below 4); nil when they cannot be packed together (see
  /// ``packedLabelLimit`` and ``packedIndexLimit``): then store it with
  /// ``WideLabels/edge(from:to:label:index:ownershipCode:)``.
  @inlinable @inline(__always)
  package init?(from: Int, to: Int, label: Int32, index: Int32 = -1, ownershipCode: UInt8) {
    if index < 0 {
      guard label < Self.wideBase else { return nil }
      self.init(from: from, to: to, word: UInt32(bitPattern: label) << 3 | UInt32(ownershipCode & 3))
    } else {
      guard label < Self.packedLabelLimit, index < Self.packedIndexLimit else { return nil }
      self.init(
        from: from, to: to,
        word: UInt32(bitPattern: index) << 16 | UInt32(bitPattern: label) << 3 | Self.indexedFlag
          | UInt32(ownershipCode & 3))
    }
  }

  @inlinable @inline(__always)
  init(from: Int, to: Int, word: UInt32) {
    self.from = Int32(truncatingIfNeeded: from)
    self.to = Int32(truncatingIfNeeded: to)
    self.word = word
  }

  /// The interned label, or ``wideBase`` + the position of the edge's pair in its ``WideLabels``.
  @inlinable var packedLabel: Int32 {
    word & Self.indexedFlag == 0 ? Int32(bitPattern: word >> 3) : Int32(bitPattern: (word >> 3) & 0x1FFF)
  }
  /// The element index packed with the label, or -1.
  @inlinable var packedIndex: Int32 { word & Self.indexedFlag == 0 ? -1 : Int32(bitPattern: word >> 16) }
  /// The ownership's code: 0 strong, 1 weak, 2 unowned, 3 unowned(unsafe).
  @inlinable package var ownershipCode: UInt8 { UInt8(truncatingIfNeeded: word & 3) }
  @inlinable package var isStrong: Bool { word & 3 == 0 }
}

/// The labels and element indices of edges whose pair does not pack into a ``CompactEdge``
/// (`items[70000]`): kept beside the edges, so that a million-element array needs no label per
/// element.
public struct WideLabels: Sendable {
  @usableFromInline package internal(set) var pairs: ChunkedArray<WidePair>

  package init() { pairs = ChunkedArray() }

  public struct WidePair: Sendable {
    @usableFromInline package var label: Int32
    @usableFromInline package var index: Int32

    @inlinable init(label: Int32, index: Int32) {
      self.label = label
      self.index = index
    }
  }

  /// An edge naming `label` and `index`, packed when they fit and otherwise through a new pair;
  /// nil when neither can hold it (more than 2²⁸ labels or pairs).
  @inlinable
  package mutating func edge(from: Int, to: Int, label: Int32, index: Int32, ownershipCode: UInt8)
    -> CompactEdge?
  {
    if let packed = CompactEdge(from: from, to: to, label: label, index: index, ownershipCode: ownershipCode)
    {
      return packed
    }
    guard label < CompactEdge.wideBase, pairs.count < Int(CompactEdge.wideBase) else { return nil }
    pairs.append(WidePair(label: label, index: index))
    return CompactEdge(
      from: from, to: to,
      word: UInt32(bitPattern: CompactEdge.wideBase + Int32(pairs.count - 1)) << 3 | UInt32(ownershipCode & 3)
    )
  }

  /// The interned label and the element index (-1 for none) of `edge`.
  @inlinable
  package func resolve(_ edge: CompactEdge) -> (label: Int32, index: Int32) {
    let label = edge.packedLabel
    guard label >= CompactEdge.wideBase else { return (label, edge.packedIndex) }
    let pair = pairs[Int(label - CompactEdge.wideBase)]
    return (pair.label, pair.index)
  }
}
