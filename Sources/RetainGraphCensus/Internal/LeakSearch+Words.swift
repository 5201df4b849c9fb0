internal import RetainGraph
internal import RetainGraphRuntime

// The count's fast path: an object whose class's references are all words of its own (class
// references, optional ones, arrays of class instances, weak and unowned references; see
// `ReferenceWords`) is not walked: its words are read here, once per object, with the offsets the
// walk would read. It is read here only when every object it refers to is one of the walk's roots
// (a class instance the census recorded and the count holds), so that the walk, had it read the
// object, would have found no object it did not read anyway: the count's answer is the walk's.
// Anything else (an unrecorded target, a weak reference that cannot be peeked) leaves the object
// to the walk.

extension LeakSearch {
  /// The references of the objects read by their words, by population index.
  struct WordReading {
    /// Whether each object (by population index) was read here; the walk does not expand it.
    var isRead: [Bool] = []
    /// Strong references held in the holder's own memory.
    var holders: [Int32] = []
    var targets: [Int32] = []
    /// Arrays of class instances: the holder, its buffer's address, and the range of its elements
    /// (population indices) in `elements`.
    var passes: [(holder: Int32, storage: UInt, elements: Range<Int>)] = []
    var elements: [Int32] = []

    /// Reads no object: every one is walked.
    init(none population: Population) {
      isRead = [Bool](repeating: false, count: population.addresses.count)
    }

    /// Reads every root (`roots[k]` is the population index of the `k`th object the count holds)
    /// whose class has ``ReferenceWords``.
    init(roots: [Int32], population: Population) {
      isRead = [Bool](repeating: false, count: population.addresses.count)
      var isRoot = [Bool](repeating: false, count: population.addresses.count)
      for root in roots { isRoot[Int(root)] = true }
      var plans: [UInt: ReferenceWords?] = [:]
      var lastMetadata: UInt = 0
      var lastPlan: ReferenceWords?
      holders.reserveCapacity(roots.count)
      targets.reserveCapacity(roots.count)
      for root in roots {
        let address = population.addresses[Int(root)]
        guard let base = UnsafeRawPointer(bitPattern: address) else { continue }
        let metadata = base.load(as: UInt.self)
        if metadata != lastMetadata {
          lastMetadata = metadata
          if let known = plans[metadata] {
            lastPlan = known
          } else {
            let made = UnsafeRawPointer(bitPattern: metadata).flatMap {
              ObjectGraph.referenceWords(ofClass: Metadata.type(at: $0))
            }
            plans[metadata] = made
            lastPlan = made
          }
        }
        guard let plan = lastPlan else { continue }
        if read(root, at: base, plan: plan, population: population, isRoot: isRoot) {
          isRead[Int(root)] = true
        }
      }
    }

    /// Reads one object's words; false (and nothing kept) when one refers to an object that is
    /// not a root, or cannot be told.
    private mutating func read(
      _ holder: Int32, at base: UnsafeRawPointer, plan: ReferenceWords, population: Population, isRoot: [Bool]
    ) -> Bool {
      let marks = (holders.count, passes.count, elements.count)
      func root(_ word: UInt) -> Int32? {
        guard let index = population.index[word], isRoot[index] else { return nil }
        return Int32(index)
      }
      func undo() -> Bool {
        holders.removeSubrange(marks.0...)
        targets.removeSubrange(marks.0...)
        passes.removeSubrange(marks.1...)
        elements.removeSubrange(marks.2...)
        return false
      }
      for word in plan.words {
        let field = base + word.offset
        let value = field.load(as: UInt.self)
        if value == 0 { continue }
        switch word.kind {
        case .strong:
          guard let target = root(value) else { return undo() }
          holders.append(holder)
          targets.append(target)
        case .objectArray:
          let objects = HeapLayout.arrayOfObjects(at: field)
          if objects.isEmpty { continue }
          let start = elements.count
          for object in objects {
            guard let target = root(UInt(bitPattern: object)) else { return undo() }
            elements.append(target)
          }
          passes.append((holder, value, start..<elements.count))
        case .weak:
          // The walk loads a live weak reference's object (a node): it must be a root already.
          guard WeakPeek.isAvailable, let target = WeakPeek.liveTarget(at: field), root(target) != nil else {
            return undo()
          }
        case .unowned:
          guard root(value) != nil else { return undo() }
        }
      }
      return true
    }
  }
}
