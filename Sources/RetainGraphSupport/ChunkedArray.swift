/// An append-only array stored in fixed-size chunks: growing it never copies what it holds, so a
/// million-edge graph does not need its edges twice in memory while the array grows.
///
/// The chunks are memory of its own (an owner object frees them), not arrays: appending checks one
/// owner for uniqueness (copy on write) and writes the element, where an array of arrays checked
/// both levels for uniqueness and bounds; reading an element is two loads after one bounds check.
///
/// Its reads and appends are `@inlinable`: the walk appends an edge per reference from another
/// module, and a generic call that is not specialised there costs a call per element (the tree
/// walk ran 30 % slower). The type is `public` for that reason alone: Swift 6.3 neither inlines nor
/// specialises a `package` generic type's `@inlinable` members in another module, and does for a
/// `public` type's. It has no public initialiser, and the module is no product.
public struct ChunkedArray<Element>: RandomAccessCollection {
  @inlinable static var chunkShift: Int { 16 }
  @inlinable static var chunkSize: Int { 1 << chunkShift }
  @inlinable static var chunkMask: Int { chunkSize - 1 }

  /// Owns the chunks: frees them when the last copy of the array goes away. The elements are
  /// trivial (plain data: checked when an array is made), so nothing is deinitialized.
  @usableFromInline final class Owner {
    var chunks: UnsafeMutablePointer<UnsafeMutablePointer<Element>>
    var chunkCapacity: Int
    var chunkCount = 0

    init(chunkCapacity: Int) {
      self.chunkCapacity = chunkCapacity
      chunks = .allocate(capacity: chunkCapacity)
    }

    deinit {
      for chunk in 0..<chunkCount { chunks[chunk].deallocate() }
      chunks.deallocate()
    }
  }

  @usableFromInline var owner: Owner
  /// The owner's chunks, kept here too so that reading an element does not go through the owner.
  @usableFromInline var chunks: UnsafeMutablePointer<UnsafeMutablePointer<Element>>
  /// How many elements fit before the next chunk (or a larger first chunk) is needed.
  @usableFromInline var capacity = 0
  /// The number of elements, behind ``count`` (which the inlined appends cannot set).
  @usableFromInline var storedCount: Int

  @inlinable public var count: Int { storedCount }

  package init() {
    precondition(_isPOD(Element.self), "ChunkedArray holds plain data only")
    owner = Owner(chunkCapacity: 1)
    chunks = owner.chunks
    storedCount = 0
  }

  @inlinable public var startIndex: Int { 0 }
  @inlinable public var endIndex: Int { count }

  @inlinable public subscript(position: Int) -> Element {
    @inline(__always)
    get {
      precondition(UInt(bitPattern: position) < UInt(bitPattern: count), "ChunkedArray index out of range")
      return chunks[position &>> Self.chunkShift][position & Self.chunkMask]
    }
    set {
      precondition(UInt(bitPattern: position) < UInt(bitPattern: count), "ChunkedArray index out of range")
      makeUnique()
      chunks[position &>> Self.chunkShift][position & Self.chunkMask] = newValue
    }
  }

  @inlinable @inline(__always)
  package mutating func append(_ element: Element) {
    makeUnique()
    if count == capacity { grow() }
    (chunks[count &>> Self.chunkShift] + (count & Self.chunkMask)).initialize(to: element)
    storedCount += 1
  }

  /// Copies the elements when another array shares them.
  @inlinable @inline(__always)
  mutating func makeUnique() {
    if !isKnownUniquelyReferenced(&owner) { copyOwner() }
  }

  /// Gives this array chunks of its own, of the same sizes.
  @usableFromInline mutating func copyOwner() {
    let chunkCount = owner.chunkCount
    let copy = Owner(chunkCapacity: Swift.max(chunkCount, 1))
    var remaining = count
    for chunk in 0..<chunkCount {
      let made = UnsafeMutablePointer<Element>.allocate(capacity: chunkCount == 1 ? capacity : Self.chunkSize)
      let initialized = Swift.min(remaining, Self.chunkSize)
      made.initialize(from: chunks[chunk], count: initialized)
      copy.chunks[chunk] = made
      remaining -= initialized
    }
    copy.chunkCount = chunkCount
    owner = copy
    chunks = copy.chunks
  }

  /// Makes room for one more element. The first chunk grows like an array (doubling), so that
  /// small graphs stay small; later ones are made whole, so that growing never copies (nor frees
  /// memory the allocator would keep resident).
  @usableFromInline mutating func grow() {
    if count < Self.chunkSize {
      let size = Swift.min(Swift.max(count * 2, 16), Self.chunkSize)
      let made = UnsafeMutablePointer<Element>.allocate(capacity: size)
      if owner.chunkCount == 1 {
        made.moveInitialize(from: chunks[0], count: count)
        chunks[0].deallocate()
      }
      chunks[0] = made
      owner.chunkCount = 1
      capacity = size
      return
    }
    if owner.chunkCount == owner.chunkCapacity {
      let larger = UnsafeMutablePointer<UnsafeMutablePointer<Element>>.allocate(
        capacity: owner.chunkCapacity * 2)
      larger.moveInitialize(from: chunks, count: owner.chunkCount)
      chunks.deallocate()
      owner.chunks = larger
      owner.chunkCapacity *= 2
      chunks = larger
    }
    chunks[owner.chunkCount] = .allocate(capacity: Self.chunkSize)
    owner.chunkCount += 1
    capacity += Self.chunkSize
  }
}

extension ChunkedArray: @unchecked Sendable where Element: Sendable {}
