internal import CRetainGraphCensus
internal import RetainGraph
internal import RetainGraphProcess
internal import RetainGraphRuntime

/// The root of the census walk: global holders (labelled by name) and every live object the census
/// saw (so that each one's references are read, whoever holds it).
struct CensusRoots: GraphReflectable {
  static let censusLabel = "(census)"
  var graphChildren: [GraphChild]
}

/// Finds who retains an object, with the walker's own reading of every reference.
enum RetainerSearch {
  /// The census's live objects for one search, held strongly while it runs.
  private struct Population {
    /// Every live class instance the census saw (closure contexts and boxes are reached through
    /// their holders, which the walker reads).
    var objects: [AnyObject] = []
    var indexByAddress = AddressIndex(capacity: 0)
    /// Objects whose own memory holds the target's address, or an address of one of these (found
    /// by reading recorded memory only, never following a pointer): the likely holders.
    var rawAncestors: [Int] = []
    /// Closures whose contexts' captures hold the target's address, named by their function.
    var capturingContexts: [String] = []
    /// Objects whose memory Core Foundation lays out (the walk does not read them by type) and one
    /// of whose words equals the target's address or its side table's: their type names.
    var coreFoundationHolders: [String] = []
  }

  static func report(for target: AnyObject) -> RetainerReport {
    // The search keeps every object it reads alive: reference-count audits must not count then.
    HeapWideRetains.during { unguardedReport(for: target) }
  }

  private static func unguardedReport(for target: AnyObject) -> RetainerReport {
    let before = CensusTable.nextSequence
    CensusTable.settle()
    let targetAddress = UInt(bitPattern: Unmanaged.passUnretained(target).toOpaque())
    var population = collect(before: before, target: targetAddress)
    let capturingContexts = population.capturingContexts
    // A closure context is reached through its holder (the walk reads a context only there).
    let targetIsClassInstance =
      CensusRuntime.metadata(ofObjectAt: UnsafeRawPointer(Unmanaged.passUnretained(target).toOpaque()))
      .map(CensusRuntime.isClass(metadata:)) ?? false
    if population.indexByAddress[targetAddress] == nil, targetIsClassInstance {
      population.indexByAddress.insert(targetAddress, index: population.objects.count)
      population.objects.append(target)
    }
    var notes: [RetainerReport.Note] = []
    var globals: [GraphChild] = []
    var globalLabels: Set<String> = []
    for global in GlobalReferences.find(where: { population.indexByAddress[$0] != nil }) {
      guard let index = population.indexByAddress[global.object] else { continue }
      if global.isVerified {
        if globalLabels.insert(global.name).inserted {
          globals.append(.global(global.name, population.objects[index]))
        }
      } else if global.object == targetAddress {
        notes.append(.wordInGlobal(global.name))
      }
    }
    // Globals holding objects made before the census started, read with their declared type.
    for variable in GlobalReferences.typedVariables() where globalLabels.insert(variable.name).inserted {
      if variable.isWeak, let object = variable.value as AnyObject? {
        globals.append(.global(variable.name, object, ownership: .weak))
      } else {
        globals.append(.global(variable.name, variable.value))
      }
    }
    // Running tasks and the blocks Dispatch keeps for queued work: holders outside the objects the
    // census records, named by what they run.
    let queued = QueuedHolders.snapshot()
    let holders = queued.map { GraphChild.strong($0.name, $0.closure) }
    let holderNames = queued.map(\.name)
    // First from the globals and the likely holders only, so that objects unrelated to the target
    // (other tests' objects, changing meanwhile) are not read; then, when no global holds it, from
    // every live object.
    let nearby = population.rawAncestors.map {
      GraphChild.strong(CensusRoots.censusLabel, population.objects[$0])
    }
    let coreFoundationHolders = population.coreFoundationHolders
    if var report = search(target, roots: globals + holders + nearby, holders: holderNames, notes: notes) {
      switch report.origin {
      case .global, .runtimeHolder:
        patch(&report, capturingContexts: capturingContexts)
        addWordHolders(&report, coreFoundationHolders)
        return report
      default: break
      }
    }
    // One array of every live object (read from its buffer, element by element, in order: the
    // same nodes and edges as one root reference each, without a `GraphChild` per object).
    let everything = GraphChild.strong(CensusRoots.censusLabel, population.objects)
    population = Population()
    var report =
      search(target, roots: globals + holders + [everything], holders: holderNames, notes: notes)
      ?? RetainerReport(
        typeName: CensusNames.shortName(String(reflecting: type(of: target))), retainers: [], origin: .none,
        path: [], notes: notes + [.notReached])
    patch(&report, capturingContexts: capturingContexts)
    addWordHolders(&report, coreFoundationHolders)
    return report
  }

  /// Objects the walk does not read by type (Core Foundation's memory) whose words hold the
  /// target's address: listed as holders seen only as a word, with a note.
  private static func addWordHolders(_ report: inout RetainerReport, _ names: [String]) {
    guard !names.isEmpty else { return }
    for name in names.sorted() {
      report.retainers.append(
        .init(heldBy: .object(typeName: name), label: "", ownership: .strong, isWordOnly: true))
    }
    report.notes.append(.coreFoundationHolders)
  }

  private static func search(
    _ target: AnyObject, roots: [GraphChild], holders: [String], notes: [RetainerReport.Note]
  ) -> RetainerReport? {
    // Contexts kept too: the target may be a closure context (a growing closure's).
    let (graph, nodeObjects) = ObjectGraph.walkKeepingContexts(
      CensusRoots(graphChildren: roots), options: GraphOptions(maxNodes: Int(Int32.max)))
    guard let targetNode = nodeObjects.firstIndex(where: { $0 === target }) else { return nil }
    return analyse(graph, target: targetNode, holders: holders, notes: notes)
  }

  /// A closure context's function. A thick function value is two words, the function then the
  /// context, so: the word before the target's address in the context itself, when it is a
  /// function (a closure that captures only the target has the target as its context, and a thunk
  /// context holds that closure); else the word before the context's address in the memory of a
  /// recorded object that holds it. Reabstraction thunks are looked through; names come from the
  /// symbol tables.
  private static func closureName(
    ofContext context: UInt, target: UInt, records: UnsafeBufferPointer<rgc_record>
  ) -> String {
    func function(before word: UInt, in record: rgc_record) -> String? {
      let count = Int(record.size) / 8
      guard count > 3 else { return nil }
      let words = CensusRuntime.words(at: UnsafeRawPointer(record.object), count: count)
      for index in 3..<count where words[index] == word {
        let previous = words[index - 1]
        guard let function = UnsafeRawPointer(bitPattern: previous),
          var name = CensusRuntime.functionName(containing: function), !name.contains("thunk")
        else { continue }
        for prefix in ["partial apply for ", "specialized "] where name.hasPrefix(prefix) {
          name.removeFirst(prefix.count)
        }
        return CensusNames.readableFunctionName(name)
      }
      return nil
    }
    if let own = records.first(where: { UInt(bitPattern: $0.object) == context }),
      let name = function(before: target, in: own)
    {
      return name
    }
    for record in records {
      if let name = function(before: context, in: record) { return name }
    }
    return "a closure whose holder the census cannot see"
  }

  /// Closures the walk did not reach (their holder is storage it cannot see into) but whose
  /// captures hold the object, named by their function.
  private static func patch(_ report: inout RetainerReport, capturingContexts: [String]) {
    // A task or a queued block is named: its closure's context is not an unseen one.
    if case .runtimeHolder = report.origin { return }
    guard !capturingContexts.isEmpty, !report.retainers.contains(where: \.isClosureContext)
    else {
      return
    }
    for name in capturingContexts {
      report.retainers.append(
        .init(heldBy: .closure(name: name), label: "capture", ownership: .strong, isClosureContext: true))
    }
    if case .none = report.origin {
      report.origin = .unseenHolder
      report.path = [
        TraceStep(
          holder: capturingContexts[0], holderKind: .closure, label: "capture", target: report.typeName)
      ]
    }
  }

  private static func collect(before: UInt64, target: UInt) -> Population {
    CensusTable.withLiveRecords(before: before) { records in
      var population = Population()
      population.indexByAddress = AddressIndex(capacity: records.count + 1)
      let sideTable = CensusRuntime.sideTable(ofObjectAt: target)
      var coreFoundationNames: [UnsafeRawPointer: String?] = [:]
      // Records of one type often come in runs: the last type's answer, before the dictionary.
      var lastClass: (metadata: UnsafeRawPointer, name: String?)?
      var contexts: [UInt] = []
      // Each object's retain (its `object(at:)`) is moved into the array: no second count per object.
      population.objects = [AnyObject](unsafeUninitializedCapacity: records.count) { buffer, count in
        count = 0
        for record in records {
          guard let metadata = CensusRuntime.metadata(ofObjectAt: record.object) else { continue }
          if CensusRuntime.isClosureContext(metadata: metadata),
            words(of: record, contain: { $0 == target })
          {
            contexts.append(UInt(bitPattern: record.object))
          }
          guard CensusRuntime.isClass(metadata: metadata) else { continue }
          if UInt(bitPattern: record.object) != target {
            let name: String?
            if let lastClass, lastClass.metadata == metadata {
              name = lastClass.name
            } else {
              name =
                coreFoundationNames[metadata]
                ?? {
                  let name = CensusNames.coreFoundationTypeName(metadata: metadata)
                  coreFoundationNames[metadata] = name
                  return name
                }()
              lastClass = (metadata, name)
            }
            if let name, words(of: record, contain: { $0 == target || $0 == sideTable }) {
              population.coreFoundationHolders.append(name)
            }
          }
          guard let object = CensusRuntime.object(at: record.object) else { continue }
          population.indexByAddress.insert(UInt(bitPattern: record.object), index: count)
          buffer.initializeElement(at: count, to: object)
          count += 1
        }
      }
      population.capturingContexts = contexts.map {
        closureName(ofContext: $0, target: target, records: records)
      }
      // Holders by their own memory, a few levels up (an array buffer, then its owner). Weak
      // references hold the target's side table instead of its address.
      var frontier: Set<UInt> = [target]
      if let sideTable { frontier.insert(sideTable) }
      var found: Set<UInt> = [target]
      for _ in 0..<8 where !frontier.isEmpty && found.count < 10_000 {
        var next: Set<UInt> = []
        // Most words are not in a small frontier: test a sorted array first, without hashing.
        let sorted = frontier.sorted()
        let low = sorted[0]
        let high = sorted[sorted.count - 1]
        for record in records {
          let holds = words(of: record) { word in
            word >= low && word <= high
              && (sorted.count < 32 ? sorted.contains(word) : frontier.contains(word))
          }
          // Few records hold a frontier word: only those are looked up among the found.
          if holds, !found.contains(UInt(bitPattern: record.object)) {
            next.insert(UInt(bitPattern: record.object))
          }
        }
        found.formUnion(next)
        frontier = next
        for address in next.sorted() {
          if let index = population.indexByAddress[address] { population.rawAncestors.append(index) }
        }
      }
      return population
    }
  }

  /// Whether a word of a recorded object's memory (after its two-word header, up to what `malloc`
  /// gave it) satisfies `test`.
  private static func words(of record: rgc_record, contain test: (UInt) -> Bool) -> Bool {
    let object = UnsafeRawPointer(record.object)
    return CensusRuntime.anyWord(
      ofObjectAt: object, size: CensusTable.readableSize(ofObjectAt: object, recorded: Int(record.size)),
      satisfies: test)
  }
}
