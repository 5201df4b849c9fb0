internal import CRetainGraphCensus
internal import Foundation
internal import RetainGraph
internal import RetainGraphRuntime
internal import RetainGraphSupport
internal import Synchronization

extension HeapCensus {
  /// The default of ``dumpTimeBudget``.
  private static let dumpTimeBudgetStorage = Mutex<Duration>(.seconds(2))

  /// How long a dump may spend finding the holders of what grew, unless its call says otherwise
  /// (``writeDump(to:timeBudget:)``, ``installDumpHandler(signal:directory:timeBudget:onDump:)``):
  /// 2 seconds. Safe to set from any thread; a dump reads it when it starts.
  ///
  /// Every type that grew is searched, most growth first, in one forked copy of the process, until
  /// the dump has taken this long since it began (the leak count included); a search started within
  /// the budget finishes. The types left are marked ``CensusDump/Growth/Skip/timeBudget``.
  public static var dumpTimeBudget: Duration {
    get { dumpTimeBudgetStorage.withLock { $0 } }
    set { dumpTimeBudgetStorage.withLock { $0 = newValue } }
  }

  /// What the previous dump taken in this process left for the next one.
  private struct DumpState {
    var number = 0
    var counts: [String: Int]? = nil
    var mark: Mark? = nil
  }

  private static let dumpState = Mutex(DumpState())

  /// How long a search started within the budget may still take before its child is killed (and
  /// the searches it had not finished are marked failed).
  private static let searchGrace: Duration = .seconds(30)

  /// Writes a census dump (``CensusDump``, JSON) to `path`, atomically (a temporary file renamed over
  /// it): the live counts by type, the leaked cycles (``leaks(since:timeout:)``), and, for every type
  /// that grew since the previous dump this process took, its counts before and after and the
  /// retainer path of its newest instance allocated since, within a time budget.
  ///
  /// ```swift
  /// try HeapCensus.writeDump(to: "/tmp/before.json")
  /// runTheScenario()
  /// try HeapCensus.writeDump(to: "/tmp/after.json")
  /// // census dump written: /tmp/after.json (10412 objects, 0.41 s)
  /// // $ retain-graph diff /tmp/before.json /tmp/after.json
  /// ```
  /// The holders are searched in one forked copy of the process (as ``retainers(isolating:timeout:)``
  /// searches), most growth first, while the dump has taken less than `timeBudget`; a type not
  /// searched in time has no holder and says so (``CensusDump/Growth/skipped``). When the file is
  /// written, one line goes to standard error: the path, the live objects and the seconds taken.
  /// Dumps taken at once from several threads are taken one after the other.
  /// The dump's own allocations (its encoder, its texts) are not recorded.
  /// - Parameters:
  ///   - path: the file to write (replaced when it exists).
  ///   - timeBudget: how long the dump may spend before it starts no more holder searches; nil for
  ///     ``dumpTimeBudget``.
  /// - Throws: ``CensusDumpError``: the census is not running, the leak count failed, or the file
  ///   could not be written.
  public static func writeDump(to path: String, timeBudget: Duration? = nil) throws(CensusDumpError) {
    guard isRunning else { throw .censusNotRunning }
    let clock = ContinuousClock()
    let started = clock.now
    let deadline = started + (timeBudget ?? dumpTimeBudget)
    let liveObjects = try CensusTable.unrecorded { () throws(CensusDumpError) -> Int in
      try writeDumpUnrecorded(to: path, deadline: deadline)
    }
    let elapsed = clock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    // The program asked for the dump: say where it went (one line, as a server's log would show it).
    CensusTable.unrecorded {
      let line =
        "census dump written: \(path) (\(liveObjects) objects, "
        + "\(String(format: "%.2f", seconds)) s)\n"
      FileHandle.standardError.write(Data(line.utf8))
    }
  }

  /// Writes the dump; returns its count of live objects.
  private static func writeDumpUnrecorded(
    to path: String, deadline: ContinuousClock.Instant
  ) throws(CensusDumpError) -> Int {
    try dumpState.withLock { (state: inout DumpState) throws(CensusDumpError) -> Int in
      let mark = self.mark()
      let counts = liveCounts()
      let leaks: LeakReport
      do throws(LeakCountError) {
        leaks = try HeapCensus.leaks()
      } catch .countFailed(let error) {
        throw .leakSearchFailed(error)
      } catch {
        // The census runs (checked above), so it can record and was started.
        throw .censusNotRunning
      }
      var growth: [CensusDump.Growth] = []
      var notes: [CensusDump.Note] = []
      if let before = state.counts {
        growth = counts.compactMap { count in
          let old = before[count.typeName] ?? 0
          guard count.count > old else { return nil }
          return CensusDump.Growth(typeName: count.typeName, before: old, after: count.count)
        }
        .sorted { ($0.after - $0.before, $1.typeName) > ($1.after - $1.before, $0.typeName) }
        explain(&growth, since: state.mark, deadline: deadline, notes: &notes)
      }
      state.number += 1
      let liveObjects = counts.reduce(0) { $0 + $1.count }
      let dump = CensusDump(
        format: CensusDump.formatName, version: CensusDump.currentVersion, time: timestamp(),
        pid: getpid(), number: state.number, liveObjects: liveObjects,
        counts: counts, leaks: leaks, growth: growth, notes: notes)
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      let data: Data
      do {
        data = try CensusTable.unrecorded { try encoder.encode(dump) }
      } catch {
        throw .cannotWrite(path: path, reason: "the dump could not be encoded: \(error)")
      }
      do throws(AtomicFile.Failure) {
        try AtomicFile.write(data, to: URL(fileURLWithPath: path))
      } catch {
        throw .cannotWrite(path: path, reason: error.reason)
      }
      state.counts = Dictionary(counts.map { ($0.typeName, $0.count) }, uniquingKeysWith: +)
      state.mark = mark
      return liveObjects
    }
  }

  /// Fills in the holders of what grew, most growth first, until `deadline`: the retainers of each
  /// type's newest instance allocated since `mark`, all searched in one forked child.
  private static func explain(
    _ growth: inout [CensusDump.Growth], since mark: Mark?, deadline: ContinuousClock.Instant,
    notes: inout [CensusDump.Note]
  ) {
    let instances = newestInstances(of: Set(growth.map(\.typeName)), since: mark)
    var searched: [(index: Int, object: AnyObject)] = []
    for index in growth.indices {
      if let object = instances[growth[index].typeName] {
        searched.append((index, object))
      } else {
        growth[index].skipped = .noClassInstance
      }
    }
    guard !searched.isEmpty else { return }
    let reports: [RetainerReport]
    do throws(ForkedWalkError) {
      reports = try retainers(isolating: searched.map(\.object), until: deadline)
    } catch {
      for (index, _) in searched { growth[index].skipped = .searchFailed }
      notes.append(.searchesFailed(reason: "\(error)"))
      return
    }
    for (position, (index, _)) in searched.enumerated() {
      guard position < reports.count else {
        growth[index].skipped = .timeBudget
        continue
      }
      growth[index].retainers = reports[position]
    }
    if reports.count < searched.count {
      let left = searched.count - reports.count
      notes.append(.timeBudgetRanOut(searched: reports.count, notSearched: left))
    }
  }

  /// The retainer reports of `objects`, in order, searched one after the other in one forked copy of
  /// the process while the clock is before `deadline` (the first is always searched): a prefix of
  /// them, one report each.
  private static func retainers(
    isolating objects: [AnyObject], until deadline: ContinuousClock.Instant
  ) throws(ForkedWalkError) -> [RetainerReport] {
    CensusRuntime.prepareForFork()
    let clock = ContinuousClock()
    let timeout = max(deadline - clock.now, .zero) + searchGrace
    let bytes = try ForkedChild.run(timeout: timeout) { () -> [UInt8] in
      var reports: [RetainerReport] = []
      for object in objects {
        if !reports.isEmpty, clock.now >= deadline { break }
        reports.append(retainers(of: object))
      }
      return (try? JSONEncoder().encode(reports)).map { Array($0) } ?? []
    }
    do {
      return try JSONDecoder().decode([RetainerReport].self, from: Data(bytes))
    } catch {
      throw .malformedData("the retainer reports (\(bytes.count) bytes) could not be decoded: \(error)")
    }
  }

  /// The newest live class instance of each of `names` allocated since `mark`, retained.
  private static func newestInstances(of names: Set<String>, since mark: Mark?) -> [String: AnyObject] {
    guard !names.isEmpty else { return [:] }
    return CensusTable.unrecorded {
      var found: [String: AnyObject] = [:]
      var nameOf: [UnsafeRawPointer: String?] = [:]
      CensusTable.withLiveRecords(since: mark?.sequence ?? 0) { records in
        var newest: [String: rgc_record] = [:]
        for record in records {
          guard let metadata = CensusRuntime.metadata(ofObjectAt: record.object) else { continue }
          let name: String?
          if let known = nameOf[metadata] {
            name = known
          } else {
            let typeName = CensusNames.typeName(metadata: metadata)
            name = CensusRuntime.isClass(metadata: metadata) && names.contains(typeName) ? typeName : nil
            nameOf[metadata] = name
          }
          guard let name else { continue }
          if let other = newest[name], other.sequence > record.sequence { continue }
          newest[name] = record
        }
        for (name, record) in newest {
          found[name] = CensusRuntime.object(at: record.object)
        }
      }
      return found
    }
  }

  /// Now, ISO 8601 in UTC, to the second.
  private static func timestamp() -> String {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    return formatter.string(from: Date())
  }
}
