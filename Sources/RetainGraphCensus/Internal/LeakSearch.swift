internal import CRetainGraphCensus
internal import RetainGraph
internal import RetainGraphProcess
internal import RetainGraphRuntime

/// Finds leaked cycles with no root: every recorded object's strong count minus the strong
/// references other recorded objects hold to it (CPython's `update_refs` / `subtract_refs`); what
/// stays above zero is held from outside, and it and all it reaches are alive (`move_unreachable`).
enum LeakSearch {
  /// The census's live objects for one count, with what the runtime says of each.
  struct Population {
    /// Every object: recorded ones first, then the collection storage the walk read through that
    /// the census did not record.
    var addresses: [UInt] = []
    /// The recorded size in bytes (0: not recorded, so its words are not read).
    var sizes: [Int] = []
    var strongCounts: [Int] = []
    /// The allocation number (`UInt64.max` for storage the census did not record).
    var sequences: [UInt64] = []
    /// The leak scope each object was allocated in (0: none, or storage the census did not record).
    var scopes: [UInt32] = []
    var index = AddressIndex(capacity: 0)
    /// How many of them the census recorded.
    var recordedCount = 0
    /// The population index of each class instance the count holds (the walk's roots), in order.
    var roots: [Int32] = []

    /// Adds a collection's storage the census did not record (read through by the walk or by its
    /// holder's words); returns its index.
    mutating func addUnrecordedStorage(_ address: UInt, at object: UnsafeRawPointer) -> Int {
      let strong = CensusRuntime.strongCount(ofObjectAt: object)
      index.insert(address, index: addresses.count)
      addresses.append(address)
      strongCounts.append(strong)
      sequences.append(.max)
      scopes.append(0)
      // Its size, for reading its words: what `malloc` gave it (the runtime allocates heap
      // objects with `malloc`; an immortal, statically made storage holds no reference to check).
      sizes.append(strong < 1 << 30 ? rgc_allocation_size(object) : 0)
      return addresses.count - 1
    }
  }

  /// The count's answer: which objects are garbage, and what it could not attribute.
  struct Accounting {
    var population: Population
    /// Strong references attributed to their holders: `holders[k]` holds `targets[k]`.
    var holders: [Int32] = []
    var targets: [Int32] = []
    var isGarbage: [Bool] = []
    var unexplained = LeakReport.Unexplained()
    /// `holders` and `targets` as successor lists.
    var successors = Successors(count: 0, holders: [], targets: [])
  }

  /// The census's class instances (the walk's roots: `objects[k]` is the object of
  /// `population.roots[k]`, held strongly) and the population, with every strong count read before
  /// anything here retains them. In a forked child, where only the child could free an object, an
  /// instance of a class whose references are words of its own (``ReferenceWords``) is a root
  /// without a retain (nil in `objects`) when it has not begun deinitialising (when a retain would
  /// succeed): a retain writes to the object, which copies its page of the heap.
  static func collect(before: UInt64) -> (objects: [AnyObject?], population: Population) {
    CensusTable.withLiveRecords(before: before, unheldInForkedChild: true) { records in
      var population = Population()
      population.index = AddressIndex(capacity: records.count + 1)
      var objects: [AnyObject?] = []
      objects.reserveCapacity(records.count)
      // Room for every record at once (a million objects: no copy while growing, and each page is
      // touched once).
      population.addresses.reserveCapacity(records.count)
      population.sizes.reserveCapacity(records.count)
      population.strongCounts.reserveCapacity(records.count)
      population.sequences.reserveCapacity(records.count)
      population.scopes.reserveCapacity(records.count)
      population.roots.reserveCapacity(records.count)
      let unretained = ForkedProcess.isChild
      var hasWords: [UInt: Bool] = [:]
      var last: (metadata: UInt, hasWords: Bool) = (0, false)
      for record in records {
        guard let metadata = CensusRuntime.metadata(ofObjectAt: record.object) else { continue }
        let strong = CensusRuntime.strongCount(ofObjectAt: record.object)
        guard strong > 0 else { continue }
        let address = UInt(bitPattern: record.object)
        population.index.insert(address, index: population.addresses.count)
        population.addresses.append(address)
        population.sizes.append(Int(record.size))
        population.strongCounts.append(strong)
        population.sequences.append(record.sequence)
        population.scopes.append(record.scope)
        // Closure contexts and boxes are read through their holders (the walk reads a context
        // only there).
        guard CensusRuntime.isClass(metadata: metadata) else { continue }
        if unretained {
          let key = UInt(bitPattern: metadata)
          if key != last.metadata {
            let known =
              hasWords[key]
              ?? {
                let found = ObjectGraph.referenceWords(ofClass: Metadata.type(at: metadata)) != nil
                hasWords[key] = found
                return found
              }()
            last = (key, known)
          }
          if last.hasWords {
            guard rgc_is_deallocating(record.object) == 0 else { continue }
            population.roots.append(Int32(population.addresses.count - 1))
            objects.append(nil)
            continue
          }
        }
        if let object = CensusRuntime.object(at: record.object) {
          population.roots.append(Int32(population.addresses.count - 1))
          objects.append(object)
        }
      }
      population.recordedCount = population.addresses.count
      return (objects, population)
    }
  }

  /// Counts: attributes each strong reference of `reading` to the recorded heap object that holds
  /// it, subtracts, and marks what nothing outside reaches as garbage.
  static func account(
    _ reading: HeapReading, words: WordReading, population start: consuming Population
  ) -> Accounting {
    var population = consume start
    // Node → population index (-1: not recorded, so outside).
    var nodeIndex = [Int32](repeating: -1, count: reading.objects.count)
    for (node, object) in reading.objects.enumerated() {
      guard let object else { continue }
      let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
      if let index = population.index[address] { nodeIndex[node] = Int32(index) }
    }
    // Passes: a pass inside a re-read storage is a re-reading (not a reference of its own); the
    // first real pass through a storage is the one whose elements count.
    var passStorage = [Int32](repeating: -1, count: reading.passes.count)
    var passIsReal = [Bool](repeating: false, count: reading.passes.count)
    var passIsPrimary = [Bool](repeating: false, count: reading.passes.count)
    // Whether a storage (by population index) was read through already.
    var isRead = [Bool](repeating: false, count: population.addresses.count)
    for (number, pass) in reading.passes.enumerated() {
      passIsReal[number] = pass.outer < 0 || passIsPrimary[Int(pass.outer)]
      guard passIsReal[number] else { continue }
      var storage = population.index[pass.storage] ?? -1
      if storage < 0 {
        // Storage the census did not record: counted when its elements are its words.
        guard let object = UnsafeRawPointer(bitPattern: pass.storage) else {
          passIsReal[number] = false
          continue
        }
        storage = population.addUnrecordedStorage(pass.storage, at: object)
        isRead.append(false)
      }
      passStorage[number] = Int32(storage)
      if !isRead[storage] {
        isRead[storage] = true
        passIsPrimary[number] = true
      }
    }
    // The arrays read by their holders' words (`WordReading`), after the walk's: each storage's
    // elements count once, whichever pass reads it first.
    var wordPassStorage = [Int32](repeating: -1, count: words.passes.count)
    var wordPassIsPrimary = [Bool](repeating: false, count: words.passes.count)
    for (number, pass) in words.passes.enumerated() {
      var storage = population.index[pass.storage] ?? -1
      if storage < 0 {
        guard let object = UnsafeRawPointer(bitPattern: pass.storage) else { continue }
        storage = population.addUnrecordedStorage(pass.storage, at: object)
        isRead.append(false)
      }
      wordPassStorage[number] = Int32(storage)
      if !isRead[storage] {
        isRead[storage] = true
        wordPassIsPrimary[number] = true
      }
    }
    let count = population.addresses.count
    var accounting = Accounting(population: population)
    // 32 bits a count (a million objects: 4 MB each, not 8).
    var inside = [Int32](repeating: 0, count: count)
    var unattributed = [Int32](repeating: 0, count: count)
    // Each reference to check, then checked holder by holder (a holder's words are read once).
    var candidates: [(holder: Int32, target: Int32, verified: Bool)] = []
    accounting.holders.reserveCapacity(reading.references.count + words.holders.count + words.elements.count)
    accounting.targets.reserveCapacity(reading.references.count + words.holders.count + words.elements.count)
    func attribute(_ holder: Int32, _ target: Int32, verified: Bool) {
      if holder >= 0, verified {
        // Read in the holder's own memory: counted as it is, with no check of its words.
        inside[Int(target)] += 1
        accounting.holders.append(holder)
        accounting.targets.append(target)
      } else if holder >= 0 {
        candidates.append((holder, target, verified))
      } else {
        unattributed[Int(target)] += 1
        accounting.unexplained.references += 1
      }
    }
    for (number, pass) in reading.passes.enumerated() where passIsReal[number] {
      let holder = pass.outer < 0 ? nodeIndex[Int(pass.holder)] : passStorage[Int(pass.outer)]
      // A pass from outside the census (the walk's own root) is not a reference to count.
      guard holder >= 0 || pass.outer >= 0 else { continue }
      attribute(holder, passStorage[number], verified: false)
    }
    for reference in reading.references where reference.isStrong {
      let target = nodeIndex[Int(reference.target)]
      guard target >= 0 else { continue }
      if reference.isConservative {
        unattributed[Int(target)] += 1
        accounting.unexplained.references += 1
        continue
      }
      if reference.pass < 0 {
        let holder = nodeIndex[Int(reference.holder)]
        guard holder >= 0 else { continue }  // held by an object outside the census
        attribute(holder, target, verified: false)
      } else {
        let pass = Int(reference.pass)
        guard passIsPrimary[pass] else { continue }  // the same element, read again
        if passStorage[pass] < 0 || !passIsReal[pass] { continue }
        let fromNode = reading.passes[pass].outer < 0 && nodeIndex[Int(reading.passes[pass].holder)] < 0
        if fromNode { continue }  // storage the walk's root holds
        attribute(passStorage[pass], target, verified: reading.passes[pass].elementsOnly)
      }
    }
    // The references read by their holders' words: in the holder's own memory, as read.
    for (holder, target) in zip(words.holders, words.targets) { attribute(holder, target, verified: true) }
    for (number, pass) in words.passes.enumerated() where wordPassStorage[number] >= 0 {
      let storage = wordPassStorage[number]
      attribute(pass.holder, storage, verified: false)
      guard wordPassIsPrimary[number] else { continue }
      for element in words.elements[pass.elements] { attribute(storage, element, verified: true) }
    }
    // Holder by holder (a counting sort), so that each holder's words are read once.
    var starts = [Int32](repeating: 0, count: count + 1)
    for candidate in candidates { starts[Int(candidate.holder) + 1] += 1 }
    for index in 0..<count { starts[index + 1] += starts[index] }
    var order = [Int32](repeating: 0, count: candidates.count)
    var next = starts
    for (number, candidate) in candidates.enumerated() {
      order[Int(next[Int(candidate.holder)])] = Int32(number)
      next[Int(candidate.holder)] += 1
    }
    var words = HolderWords()
    for holder in 0..<count where starts[holder] < starts[holder + 1] {
      words.start(holder: holder, population: population)
      for position in Int(starts[holder])..<Int(starts[holder + 1]) {
        let candidate = candidates[Int(order[position])]
        if candidate.verified || words.take(population.addresses[Int(candidate.target)]) {
          inside[Int(candidate.target)] += 1
          accounting.holders.append(candidate.holder)
          accounting.targets.append(candidate.target)
        } else {
          unattributed[Int(candidate.target)] += 1
          accounting.unexplained.references += 1
        }
      }
    }
    // Held from outside: a count the references inside do not explain.
    var external = [Bool](repeating: false, count: count)
    var optimistic = [Bool](repeating: false, count: count)
    for index in 0..<count {
      let rest = population.strongCounts[index] - Int(inside[index])
      if rest < 0 { accounting.unexplained.overcounted += 1 }
      external[index] = rest != 0
      optimistic[index] = rest < 0 || rest - Int(unattributed[index]) > 0
    }
    let successors = Successors(count: count, holders: accounting.holders, targets: accounting.targets)
    accounting.successors = successors
    let alive = successors.reached(from: external)
    // With every reference attributed, the optimistic roots are the external ones.
    let aliveIfExplained = optimistic == external ? alive : successors.reached(from: optimistic)
    accounting.isGarbage = alive.map { !$0 }
    var keptOut: [UInt: Int] = [:]  // metadata → objects
    for index in 0..<count where alive[index] && !aliveIfExplained[index] {
      accounting.unexplained.objectsKeptOut += 1
      let metadata = UnsafeRawPointer(bitPattern: population.addresses[index]).flatMap {
        CensusRuntime.metadata(ofObjectAt: $0)
      }
      keptOut[UInt(bitPattern: metadata), default: 0] += 1
    }
    accounting.unexplained.keptOut = keptOut.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
      .prefix(LeakReport.Unexplained.keptOutTypesShown).map { metadata, objects in
        "\(typeName(ofMetadata: metadata)) × \(LeakReport.number(objects))"
      }
    return accounting
  }
}

/// A kept-out object's type, as a person names it: a class's short name; other heap objects (a
/// closure context, a box, a collection's storage) by what they are.
func typeName(ofMetadata metadata: UInt) -> String {
  guard let pointer = UnsafeRawPointer(bitPattern: metadata), CensusRuntime.isClass(metadata: pointer) else {
    return "a closure context or box"
  }
  return TypeNames.short(TypeNames.qualified(Metadata.type(at: pointer)))
}

/// The words of a holder's memory, to check that a reference read by type is in the holder's own
/// memory (not in a box or buffer it points to): as many words equal to the target as references
/// counted.
struct HolderWords {
  private var base: UnsafeRawPointer?
  private var wordCount = 0
  /// Targets taken so far from a small holder, with how many times.
  private var taken: [(word: UInt, count: Int)] = []
  /// A large holder's words, counted once (a dictionary's storage holds many references).
  private var histogram: [UInt: Int]?

  mutating func start(holder: Int, population: LeakSearch.Population) {
    let recorded = population.sizes[holder]
    base = recorded > 16 ? UnsafeRawPointer(bitPattern: population.addresses[holder]) : nil
    // What `malloc` gave, not only what was asked for (`CensusTable.readableSize`).
    wordCount = (base.map { CensusTable.readableSize(ofObjectAt: $0, recorded: recorded) } ?? recorded) / 8
    taken.removeAll(keepingCapacity: true)
    histogram = nil
  }

  /// A large holder's words counted, once (when a reference of it is first checked).
  private mutating func countWords() {
    guard let base, wordCount > 64, histogram == nil else { return }
    var counts: [UInt: Int] = [:]
    CensusRuntime.forEachWord(ofObjectAt: base, size: wordCount * 8) { counts[$0, default: 0] += 1 }
    histogram = counts
  }

  /// Whether one more word of the holder equals `target` than were taken; takes it.
  mutating func take(_ target: UInt) -> Bool {
    guard let base else { return false }
    countWords()
    if histogram != nil {
      guard let available = histogram?[target], available > 0 else { return false }
      histogram?[target] = available - 1
      return true
    }
    var available = 0
    CensusRuntime.forEachWord(ofObjectAt: base, size: wordCount * 8) { if $0 == target { available += 1 } }
    if let position = taken.firstIndex(where: { $0.word == target }) {
      guard taken[position].count < available else { return false }
      taken[position].count += 1
      return true
    }
    guard available > 0 else { return false }
    taken.append((target, 1))
    return true
  }
}

/// The strong references attributed, as successor lists.
struct Successors {
  var offsets: [Int32]
  var targets: [Int32]

  init(count: Int, holders: [Int32], targets edgeTargets: [Int32]) {
    var offsets = [Int32](repeating: 0, count: count + 1)
    for holder in holders { offsets[Int(holder) + 1] += 1 }
    for index in 0..<count { offsets[index + 1] += offsets[index] }
    var next = offsets
    var targets = [Int32](repeating: 0, count: holders.count)
    for (holder, target) in zip(holders, edgeTargets) {
      targets[Int(next[Int(holder)])] = target
      next[Int(holder)] += 1
    }
    self.offsets = offsets
    self.targets = targets
  }

  func neighbours(of node: Int) -> ArraySlice<Int32> { targets[Int(offsets[node])..<Int(offsets[node + 1])] }

  /// Everything reachable from the nodes marked in `roots` (themselves included).
  func reached(from roots: [Bool]) -> [Bool] {
    var seen = roots
    var stack: [Int32] = []
    for (node, isRoot) in roots.enumerated() where isRoot { stack.append(Int32(node)) }
    while let node = stack.popLast() {
      for target in neighbours(of: Int(node)) where !seen[Int(target)] {
        seen[Int(target)] = true
        stack.append(target)
      }
    }
    return seen
  }
}
