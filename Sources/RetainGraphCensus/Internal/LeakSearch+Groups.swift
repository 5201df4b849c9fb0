internal import CRetainGraphCensus
internal import RetainGraph
internal import RetainGraphProcess
internal import RetainGraphRuntime

extension LeakSearch {
  /// The whole search, in this process: collect, walk, count, group, report. Reads every live
  /// object: other threads must not change them meanwhile (a forked child, or a quiet moment).
  /// - Parameters:
  ///   - mark: report only cycles that hold an object allocated at or after this number.
  ///   - scopes: report only cycles that hold an object allocated in one of these leak scopes (nil:
  ///     any).
  ///   - attributing: name the function that made each cycle (``LeaksAtExit/maker(frames:)``).
  ///   - placedHolderSize: the largest holder whose references key a shape by their place.
  /// - Returns: the report.
  static func report(
    since mark: UInt64, scopes: Set<UInt32>? = nil, attributing: Bool = false,
    placedHolderSize: Int = ShapeKey.placedHolderSize
  ) -> LeakReport {
    HeapWideRetains.during {
      let (accounting, recorded) = count()
      return groups(
        accounting, liveObjects: recorded, since: mark, scopes: scopes, attributing: attributing,
        placedHolderSize: placedHolderSize)
    }
  }

  /// Collects, walks and counts every recorded object; how many were recorded.
  /// - Parameter readingWords: read the objects that ``WordReading`` can read by their words
  ///   (false: walk every object; tests compare the two).
  /// - Returns: the count, and how many objects the census recorded.
  static func count(readingWords: Bool = true) -> (Accounting, recorded: Int) {
    let before = CensusTable.nextSequence
    ForkedProgress.report("collecting the census's records")
    CensusTable.settle()
    let (objects, population) = collect(before: before)
    ForkedProgress.report(
      "reading the references of \(LeakReport.number(population.recordedCount)) recorded objects")
    // The roots' array is itself a storage the walk reads through, and the count reads its strong
    // count and words: it must outlive the count. An optimised build would free it after the walk,
    // and its memory, reused, is no object (a release build's children crashed on it).
    defer { withExtendedLifetime(objects) {} }
    // The objects whose references are all words of their own are read by their words; the
    // others are walked (and the first never expanded when the walk reaches them).
    let words =
      readingWords
      ? WordReading(roots: population.roots, population: population) : WordReading(none: population)
    var walked: [AnyObject] = []
    for (object, index) in zip(objects, population.roots) where !words.isRead[Int(index)] {
      if let object {
        walked.append(object)
      } else if let address = UnsafeRawPointer(bitPattern: population.addresses[Int(index)]),
        let object = CensusRuntime.object(at: address)
      {
        // Not retained by `collect` (it was to be read by its words): held for the walk now.
        walked.append(object)
      }
    }
    // The walk's roots' array, like `objects`, must outlive the count.
    defer { withExtendedLifetime(walked) {} }
    let reading = readHeap(walked, population: population, words: words)
    ForkedProgress.report(
      "counting the references of \(LeakReport.number(population.recordedCount)) recorded objects")
    let recorded = population.recordedCount
    // The population is handed over (the count adds to it): no copy of its columns.
    return (account(reading, words: words, population: consume population), recorded)
  }

  /// Walks `roots`, never expanding the objects `words` read.
  private static func readHeap(_ roots: [AnyObject], population: Population, words: WordReading)
    -> HeapReading
  {
    let index = population.index
    let isRead = words.isRead
    return ObjectGraph.readHeap(
      CensusRoots(graphChildren: [.strong(CensusRoots.censusLabel, roots)]),
      options: GraphOptions(maxNodes: Int(Int32.max)),
      countedElsewhere: { address in index[address].map { isRead[$0] } ?? false })
  }

  /// Groups the garbage into leaked cycles (strongly connected groups, and what only each keeps
  /// alive), each reported as a walked cycle is.
  static func groups(
    _ accounting: Accounting, liveObjects: Int, since mark: UInt64, scopes: Set<UInt32>? = nil,
    attributing: Bool = false, placedHolderSize: Int = ShapeKey.placedHolderSize
  )
    -> LeakReport
  {
    let population = accounting.population
    let count = population.addresses.count
    let successors = accounting.successors
    let garbage = (0..<count).filter { accounting.isGarbage[$0] }
    ForkedProgress.report("grouping \(LeakReport.number(garbage.count)) garbage objects into leaked cycles")
    let components = StrongComponents.find(in: successors, among: accounting.isGarbage)
    // Cycles: components of more than one object, or of one that holds itself.
    var cycles: [[Int]] = []
    for component in components {
      if component.count > 1 || successors.neighbours(of: component[0]).contains(Int32(component[0])) {
        cycles.append(component)
      }
    }
    // A cycle's members are its own; every other garbage object belongs to the one cycle that
    // reaches it without passing through another cycle (-2: several do).
    var owner = [Int32](repeating: -1, count: count)
    var isMember = [Bool](repeating: false, count: count)
    for (number, cycle) in cycles.enumerated() {
      for member in cycle {
        owner[member] = Int32(number)
        isMember[member] = true
      }
    }
    var stamp = [Int32](repeating: -1, count: count)
    var stack: [Int] = []
    for (number, cycle) in cycles.enumerated() {
      stack.removeAll(keepingCapacity: true)
      stack.append(contentsOf: cycle)
      let stamped = Int32(number)
      for member in cycle { stamp[member] = stamped }
      while let node = stack.popLast() {
        if !isMember[node] { owner[node] = owner[node] == -1 || owner[node] == stamped ? stamped : -2 }
        for position in Int(successors.offsets[node])..<Int(successors.offsets[node + 1]) {
          let target = successors.targets[position]
          guard stamp[Int(target)] != stamped else { continue }
          stamp[Int(target)] = stamped
          if accounting.isGarbage[Int(target)], !isMember[Int(target)] { stack.append(Int(target)) }
        }
      }
    }
    var groups = [[Int]](repeating: [], count: cycles.count)
    for object in garbage where owner[object] >= 0 { groups[Int(owner[object])].append(object) }
    // Each cycle reported, by a cheap key of its shape (below): one walk per key, of the oldest.
    var keyed: [ShapeKey: Int] = [:]
    var references: [(UInt, UInt, UInt)] = []  // the keys' scratch
    var instances: [[Int]] = []  // per key, the cycles' numbers
    // Columns read per cycle (a closure that captured the population would copy it per cycle).
    let sequenceColumn = population.sequences
    let scopeColumn = population.scopes
    for (number, cycle) in cycles.enumerated() {
      let group = groups[number]
      var newest: UInt64?
      for member in group where sequenceColumn[member] != .max {
        newest = max(newest ?? 0, sequenceColumn[member])
      }
      guard let newest, newest >= mark else { continue }
      if let scopes, !group.contains(where: { scopes.contains(scopeColumn[$0]) }) { continue }
      let key = ShapeKey(
        cycle: cycle, successors: successors, population: population, placedHolderSize: placedHolderSize,
        references: &references)
      if let slot = keyed[key] {
        instances[slot].append(number)
      } else {
        keyed[key] = instances.count
        instances.append([number])
      }
    }
    var shapes = ShapeTally()
    // How each captured type's live instances are owned, read once per type.
    var ownersByMetadata: [[UInt]: LiveOwners] = [:]
    func liveOwners(_ metadata: UInt, _ holder: UInt) -> LiveOwners {
      if let known = ownersByMetadata[[metadata, holder]] { return known }
      let owners = Self.liveOwners(ofMetadata: metadata, ownedBy: holder, in: accounting)
      ownersByMetadata[[metadata, holder]] = owners
      return owners
    }
    for (shape, cycleNumbers) in instances.enumerated() {
      ForkedProgress.report(
        "walking leaked cycle shape \(shape + 1) of \(instances.count) "
          + "(\(LeakReport.number(cycles.count)) leaked cycles)")
      // The oldest instance first: the representative, walked; then the others, tallied.
      let ordered = cycleNumbers.map { number in
        (number, groups[number].lazy.map { sequenceColumn[$0] }.filter { $0 != .max }.min() ?? .max)
      }.sorted { $0.1 < $1.1 }
      var representative: Analysed?
      var unreadable: [Int] = []
      for (number, _) in ordered where representative == nil {
        representative = leakedCycle(
          cycle: cycles[number], group: groups[number], population: population, attributing: attributing)
        if representative == nil { unreadable.append(number) }
      }
      guard let representative else { continue }
      // The newest instance is walked too: a key that cannot tell two shapes apart (references
      // inside a large holder are keyed by type, not by place) shows here, and then every
      // instance is walked.
      var walked: [(Int, Analysed)] = []
      if let newest = ordered.last?.0, ordered.count > 1,
        let last = leakedCycle(
          cycle: cycles[newest], group: groups[newest], population: population, attributing: attributing),
        last.signature != representative.signature
      {
        for (number, _) in ordered where !unreadable.contains(number) {
          if let analysed = leakedCycle(
            cycle: cycles[number], group: groups[number], population: population, attributing: attributing)
          {
            walked.append((number, analysed))
          }
        }
      } else {
        // One signature for all: its fix decided once, its instances tallied together.
        let tallied = ordered.lazy.filter { !unreadable.contains($0.0) }.map { groups[$0.0] }
        shapes.add(
          decidingTwoEdits(representative, owners: liveOwners), groups: tallied, population: population)
      }
      for (number, analysed) in walked {
        shapes.add(
          decidingTwoEdits(analysed, owners: liveOwners), group: groups[number], population: population)
      }
    }
    return LeakReport(
      leaks: shapes.reported(attributing: attributing), liveObjects: liveObjects,
      leakedObjects: garbage.count,
      unexplained: accounting.unexplained)
  }

  /// The leaked cycles' shapes as they are tallied: one per signature, from its oldest instance.
  struct ShapeTally {
    private var order: [LeakSignature] = []
    private var shapes: [LeakSignature: (analysed: Analysed, shape: LeakReport.LeakedCycle)] = [:]

    /// Adds instances of one signature, as many calls of `add(_:group:population:)` would, with
    /// one look-up of the signature.
    mutating func add(_ analysed: Analysed, groups: some Sequence<[Int]>, population: Population) {
      // The batch's instances: how many, their objects and bytes, the range of their allocation
      // numbers, and the object count of its oldest.
      var batch: (count: Int, objects: Int, bytes: Int, sequences: ClosedRange<UInt64>, oldestObjects: Int)?
      let sequenceColumn = population.sequences
      let sizeColumn = population.sizes
      for group in groups {
        var range: ClosedRange<UInt64>?
        var bytes = 0
        for member in group {
          bytes += sizeColumn[member]
          let sequence = sequenceColumn[member]
          guard sequence != .max else { continue }
          range =
            range.map { min($0.lowerBound, sequence)...max($0.upperBound, sequence) } ?? sequence...sequence
        }
        guard let oldest = range?.lowerBound, let newest = range?.upperBound else { continue }
        guard var known = batch else {
          batch = (1, group.count, bytes, oldest...newest, group.count)
          continue
        }
        known.count += 1
        known.objects += group.count
        known.bytes += bytes
        if oldest < known.sequences.lowerBound { known.oldestObjects = group.count }
        known.sequences = min(known.sequences.lowerBound, oldest)...max(known.sequences.upperBound, newest)
        batch = known
      }
      guard let batch else { return }
      if var known = shapes[analysed.signature] {
        known.shape.count += batch.count
        known.shape.totalObjectCount += batch.objects
        known.shape.bytes += batch.bytes
        let range = known.shape.sequences
        known.shape.sequences =
          min(
            range.lowerBound, batch.sequences.lowerBound)...max(range.upperBound, batch.sequences.upperBound)
        if batch.sequences.lowerBound < range.lowerBound {
          // An older instance (a shape reached under two keys): it is the one shown.
          known.analysed = analysed
          known.shape.objectCount = batch.oldestObjects
        }
        shapes[analysed.signature] = known
        return
      }
      order.append(analysed.signature)
      shapes[analysed.signature] = (
        analysed,
        LeakReport.LeakedCycle(
          signature: analysed.signature, cycleTypes: analysed.types, objectCount: batch.oldestObjects,
          sections: analysed.sections, allocationSite: analysed.site,
          sequences: batch.sequences, madeBy: analysed.maker, count: batch.count,
          totalObjectCount: batch.objects, bytes: batch.bytes)
      )
    }

    /// Adds one instance.
    mutating func add(_ analysed: Analysed, group: [Int], population: Population) {
      add(analysed, groups: CollectionOfOne(group), population: population)
    }

    /// The shapes, most instances first (then oldest first), each shown by its oldest instance.
    func reported(attributing: Bool) -> [LeakReport.LeakedCycle] {
      order.compactMap { signature -> LeakReport.LeakedCycle? in
        guard let (analysed, shape) = shapes[signature] else { return nil }
        var reported = shape
        reported.cycleTypes = analysed.types
        reported.sections = analysed.sections
        reported.allocationSite = analysed.site
        reported.madeBy = analysed.maker
        reported.isOfLibraryTypesOnly = attributing ? !analysed.hasProgramType : nil
        reported.libraryModules = analysed.libraryModules
        return reported
      }
      .sorted { ($0.count, $1.sequences.lowerBound) > ($1.count, $0.sequences.lowerBound) }
    }
  }

  /// A cheap key of a leaked cycle's shape, from the count's columns alone (no walk): its members'
  /// types, and each reference between them as the holder's type, the target's type and where in
  /// the holder the reference is (its byte offset; a holder of more than ``placedHolderSize`` bytes,
  /// a large buffer, by type only). Two cycles of one signature may have two keys (an array's
  /// element at another index): their walks give the same signature and are merged. Two of one key
  /// are of one signature unless a large holder tells them apart, which the walk of the newest
  /// instance checks.
  struct ShapeKey: Hashable {
    /// The largest holder whose references are keyed by their offset.
    static let placedHolderSize = 512
    private var words: [UInt]

    /// The key of one cycle, with `references` as scratch (one array per key, however many keys
    /// are made).
    init(
      cycle: [Int], successors: Successors, population: Population, placedHolderSize: Int,
      references: inout [(UInt, UInt, UInt)]
    ) {
      // Most leaked cycles are a few objects: a search of the cycle costs less than a set.
      let memberSet = cycle.count > 16 ? Set(cycle) : nil
      func isMember(_ node: Int) -> Bool { memberSet?.contains(node) ?? cycle.contains(node) }
      func type(_ address: UInt) -> UInt {
        guard let object = UnsafeRawPointer(bitPattern: address) else { return 0 }
        return UInt(bitPattern: CensusRuntime.metadata(ofObjectAt: object))
      }
      var words: [UInt] = []
      references.removeAll(keepingCapacity: true)
      words.reserveCapacity(1 + cycle.count + 3 * cycle.count)
      words.append(UInt(cycle.count))
      for member in cycle {
        let address = population.addresses[member]
        let holderType = type(address)
        words.append(holderType)
        let size = population.sizes[member]
        for position in Int(successors.offsets[member])..<Int(successors.offsets[member + 1]) {
          let target = successors.targets[position]
          guard isMember(Int(target)) else { continue }
          let targetAddress = population.addresses[Int(target)]
          var place = UInt.max
          if size <= placedHolderSize, let holder = UnsafeRawPointer(bitPattern: address) {
            var offset = 16
            CensusRuntime.forEachWord(ofObjectAt: holder, size: size) { word in
              if place == .max, word == targetAddress { place = UInt(offset) }
              offset += 8
            }
          }
          references.append((holderType, type(targetAddress), place))
        }
      }
      words[1...].sort()
      references.sort { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
      for reference in references {
        words.append(reference.0)
        words.append(reference.1)
        words.append(reference.2)
      }
      self.words = words
    }
  }
}

/// Tarjan's strongly connected components, iteratively, over the nodes marked `among`.
enum StrongComponents {
  static func find(in successors: Successors, among included: [Bool]) -> [[Int]] {
    let count = included.count
    var index = [Int32](repeating: -1, count: count)
    var low = [Int32](repeating: 0, count: count)
    var onStack = [Bool](repeating: false, count: count)
    var stack: [Int] = []
    var components: [[Int]] = []
    var next: Int32 = 0
    // The explicit call stack: a node and the position of its next successor.
    var calls: [(node: Int, position: Int)] = []
    for start in 0..<count where included[start] && index[start] < 0 {
      calls.append((start, Int(successors.offsets[start])))
      index[start] = next
      low[start] = next
      next += 1
      stack.append(start)
      onStack[start] = true
      while let (node, position) = calls.last {
        if position < Int(successors.offsets[node + 1]) {
          calls[calls.count - 1].position += 1
          let target = Int(successors.targets[position])
          guard included[target] else { continue }
          if index[target] < 0 {
            index[target] = next
            low[target] = next
            next += 1
            stack.append(target)
            onStack[target] = true
            calls.append((target, Int(successors.offsets[target])))
          } else if onStack[target] {
            low[node] = min(low[node], index[target])
          }
          continue
        }
        calls.removeLast()
        if let parent = calls.last { low[parent.node] = min(low[parent.node], low[node]) }
        guard low[node] == index[node] else { continue }
        var component: [Int] = []
        while let member = stack.popLast() {
          onStack[member] = false
          component.append(member)
          if member == node { break }
        }
        components.append(component)
      }
    }
    return components
  }
}
