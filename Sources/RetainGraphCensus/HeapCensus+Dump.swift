internal import CRetainGraphCensus
internal import Foundation
internal import RetainGraph
internal import RetainGraphRuntime
internal import RetainGraphSupport
internal import Synchronization

extension HeapCensus {
  /// How many of the largest growths a dump explains with a retainer search unless told otherwise
  /// (``writeDump(to:retainerSearches:)``).
  public static let dumpRetainerSearches = 5

  /// What the previous dump taken in this process left for the next one.
  private struct DumpState {
    var number = 0
    var counts: [String: Int]? = nil
    var mark: Mark? = nil
  }

  private static let dumpState = Mutex(DumpState())

  /// Writes a census dump (``CensusDump``, JSON) to `path`, atomically (a temporary file renamed over
  /// it): the live counts by type, the leaked cycles (``leaks(since:timeout:)``), and, for the types
  /// that grew since the previous dump this process took, their counts before and after and the
  /// retainer path of one instance allocated since (``retainers(isolating:timeout:)``, for the
  /// `retainerSearches` largest growths).
  ///
  /// ```swift
  /// try HeapCensus.writeDump(to: "/tmp/before.json")
  /// runTheScenario()
  /// try HeapCensus.writeDump(to: "/tmp/after.json")
  /// // $ retain-graph diff /tmp/before.json /tmp/after.json
  /// ```
  /// Dumps taken at once from several threads are taken one after the other.
  /// The dump's own allocations (its encoder, its texts) are not recorded.
  /// - Parameters:
  ///   - path: the file to write (replaced when it exists).
  ///   - retainerSearches: how many of the largest growths are explained with a retainer search
  ///     (each searches a forked copy of the process once).
  /// - Throws: ``CensusDumpError``: the census is not running, the leak count failed, or the file
  ///   could not be written.
  public static func writeDump(to path: String, retainerSearches: Int = dumpRetainerSearches)
    throws(CensusDumpError)
  {
    guard isRunning else { throw .censusNotRunning }
    try CensusTable.unrecorded { () throws(CensusDumpError) -> Void in
      try writeDumpUnrecorded(to: path, retainerSearches: retainerSearches)
    }
  }

  private static func writeDumpUnrecorded(to path: String, retainerSearches: Int) throws(CensusDumpError) {
    try dumpState.withLock { (state: inout DumpState) throws(CensusDumpError) -> Void in
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
      var notes: [String] = []
      if let before = state.counts {
        growth = counts.compactMap { count in
          let old = before[count.typeName] ?? 0
          guard count.count > old else { return nil }
          return CensusDump.Growth(typeName: count.typeName, before: old, after: count.count)
        }
        .sorted { ($0.after - $0.before, $1.typeName) > ($1.after - $1.before, $0.typeName) }
        explain(&growth, since: state.mark, searches: retainerSearches, notes: &notes)
      }
      state.number += 1
      let dump = CensusDump(
        format: CensusDump.formatName, version: CensusDump.currentVersion, time: timestamp(),
        pid: getpid(), number: state.number, liveObjects: counts.reduce(0) { $0 + $1.count },
        counts: counts, leaks: leaks, leaksText: leaks.description, growth: growth, notes: notes)
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
    }
  }

  /// Fills in the holders of the largest growths: the retainers of each type's newest instance
  /// allocated since `mark`.
  private static func explain(
    _ growth: inout [CensusDump.Growth], since mark: Mark?, searches: Int, notes: inout [String]
  ) {
    let searched = growth.prefix(max(0, searches)).map(\.typeName)
    if growth.count > searched.count {
      notes.append(
        "retainer paths are searched for the \(searches) largest growths only: "
          + "\(growth.count - searched.count) other type\(growth.count - searched.count == 1 ? "" : "s") grew"
      )
    }
    let instances = newestInstances(of: Set(searched), since: mark)
    for index in growth.indices.prefix(searched.count) {
      let name = growth[index].typeName
      guard let object = instances[name] else {
        notes.append("\(name): no instance allocated since the previous dump is a class instance alive now")
        continue
      }
      do {
        let report = try retainers(isolating: object)
        growth[index].holderPath = report.holderPath
        growth[index].retainers = report.description
      } catch {
        notes.append("\(name): the retainer search failed: \(error)")
      }
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
