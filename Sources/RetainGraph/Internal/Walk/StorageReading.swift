/// For the heap census's leak count: which heap object holds each strong reference the walk reads.
///
/// The walk reads a collection's elements as references of the node whose field holds the
/// collection, but the runtime counts each element's retain on the collection's storage, a heap
/// object of its own. While a node is expanded, each storage read through (an array of objects'
/// buffer; an array's, set's or dictionary's storage read with `Mirror`, when the collection is
/// one word) is a *pass*: the references read inside it are recorded as held by that storage, and
/// the pass itself as a reference from the node (or the enclosing pass) to the storage.
struct StorageReading {
  /// The references recorded, in walk order.
  var references: [HeapReading.Reference] = []
  /// The passes through collection storage, in walk order.
  var passes: [HeapReading.Pass] = []
  /// The passes being read (innermost last).
  private var open: [Int32] = []
  /// Set once the walk only adds edges for words equal to addresses (key path arguments, suspended
  /// frames): those are recorded as conservative.
  var isConservative = false
  /// Whether the object at an address has its references counted by the caller
  /// (``ReferenceWords``): such an object is a node when reached, never expanded.
  var isCountedElsewhere: ((UInt) -> Bool)?

  mutating func enter(_ storage: UInt, holder: Int, elementsOnly: Bool) {
    passes.append(
      HeapReading.Pass(
        holder: Int32(truncatingIfNeeded: holder), outer: open.last ?? -1, storage: storage,
        elementsOnly: elementsOnly))
    open.append(Int32(passes.count - 1))
  }

  mutating func leave() { _ = open.popLast() }

  mutating func record(from holder: Int, to target: Int, ownership: Ownership) {
    references.append(
      HeapReading.Reference(
        holder: Int32(truncatingIfNeeded: holder), target: Int32(truncatingIfNeeded: target),
        pass: open.last ?? -1, isStrong: ownership == .strong, isConservative: isConservative))
  }

  /// Whether each collection type is one of the standard library's, one word: its storage.
  private var isOneWordStorage: [ObjectIdentifier: Bool] = [:]

  /// The storage of a standard library collection value (`Array`, `ContiguousArray`, `Set`,
  /// `Dictionary` are one reference to their storage on Linux), or nil for any other value.
  mutating func storageWord(of value: Any) -> UInt? {
    let type = Swift.type(of: value)
    let key = ObjectIdentifier(type)
    let isStorage =
      isOneWordStorage[key]
      ?? {
        let name = _typeName(type, qualified: true)
        let known = ["Swift.Array<", "Swift.ContiguousArray<", "Swift.Set<", "Swift.Dictionary<"].contains {
          name.hasPrefix($0)
        }
        let answer = known && Self.size(of: value) == 8
        isOneWordStorage[key] = answer
        return answer
      }()
    guard isStorage else { return nil }
    func word<T>(_ value: T) -> UInt { withUnsafeBytes(of: value) { $0.load(as: UInt.self) } }
    let found = _openExistential(value, do: word)
    return found == 0 ? nil : found
  }

  private static func size(of value: Any) -> Int {
    func size<T>(_: T) -> Int { MemoryLayout<T>.size }
    return _openExistential(value, do: size)
  }
}

/// The references of a walk with the heap object that holds each, for the heap census's leak
/// count (``ObjectGraph/readHeap(_:options:)``).
package struct HeapReading {
  /// One reference the walk read: from node `holder` to node `target`, held by the node itself
  /// (`pass` -1) or by the storage of pass `pass`.
  package struct Reference: Sendable, Hashable {
    package var holder: Int32
    package var target: Int32
    package var pass: Int32
    package var isStrong: Bool
    /// A word equal to the target's address (a key path's argument, a suspended task's frame), not
    /// a reference read by type.
    package var isConservative: Bool
  }

  /// A collection's storage the walk read through: held by node `holder`'s own memory (`outer`
  /// -1) or by the storage of pass `outer`.
  package struct Pass: Sendable, Hashable {
    package var holder: Int32
    package var outer: Int32
    /// The storage object's address.
    package var storage: UInt
    /// Whether the references inside are the storage's elements, read from its memory (an array
    /// of class references), not values copied out of it.
    package var elementsOnly: Bool
  }

  /// Every node's object (a closure context's too); nil for a value root.
  package var objects: [AnyObject?]
  package var references: [HeapReading.Reference]
  package var passes: [HeapReading.Pass]
  /// The walk's graph, without its cycles computed: node names and edges for reports.
  package var nodeCount: Int
}

extension ObjectGraph {
  /// Walks from `root` recording, for every reference, the heap object that holds it (see
  /// `StorageReading`); keeps every node's object and closure context.
  /// - Parameters:
  ///   - root: the object or value to start from.
  ///   - options: limits and filters.
  ///   - countedElsewhere: whether the object at an address has its references counted by the
  ///     caller (each of its references to an object the caller holds strongly): such an object is
  ///     a node when reached (a reference to it is recorded), but its own references are not read.
  /// - Returns: the reading.
  package static func readHeap(
    _ root: Any, options: GraphOptions = GraphOptions(), countedElsewhere: ((UInt) -> Bool)? = nil
  ) -> HeapReading {
    var walker = Walker(options: options)
    walker.storageReading = StorageReading()
    walker.storageReading?.isCountedElsewhere = countedElsewhere
    let result = walker.walk(root, keepingObjects: true, keepingContexts: true)
    let reading = walker.storageReading ?? StorageReading()
    return HeapReading(
      objects: result.objects, references: reading.references, passes: reading.passes,
      nodeCount: result.objects.count)
  }
}
