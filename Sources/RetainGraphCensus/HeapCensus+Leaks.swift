internal import CRetainGraphCensus
internal import Foundation
package import RetainGraph
internal import RetainGraphProcess
internal import RetainGraphRuntime
internal import RetainGraphStorage

extension HeapCensus {
  /// Every leaked cycle among the objects the census recorded, with no root given: the groups of
  /// objects that nothing outside them holds (see ``LeakReport``), each with its leak trace and
  /// fix.
  ///
  /// ```swift
  /// HeapCensus.start()
  /// runTheScenario()
  /// let report = try HeapCensus.leaks()
  /// print(report)              // every leaked cycle, its trace and its fix
  /// ```
  /// The count reads every live object's fields, which other threads may be changing: it runs in
  /// a forked copy of the process (a frozen copy-on-write image with one thread), as
  /// ``retainers(isolating:timeout:)`` does, and the report comes back as compact bytes. Leaked
  /// cycles of one signature are grouped first, from the count's columns, and only the oldest of
  /// each shape is walked and explained: the cost follows the number of shapes, not of leaks.
  /// - Parameters:
  ///   - mark: report only cycles that hold an object allocated after this mark (every live object
  ///     is still counted).
  ///   - timeout: how long the child may take (it may block on a lock another thread held at the
  ///     fork; it is killed and forked again then). A child still working at the timeout says what
  ///     it was doing in the error.
  /// - Returns: the report.
  /// - Throws: ``LeakCountError`` when nothing could be looked for (the census cannot record here,
  ///   or never started), or the child crashed, timed out or sent something unreadable.
  /// - Complexity: O(*n* + *e*) for *n* recorded objects and *e* references between them.
  public static func leaks(since mark: Mark? = nil, timeout: Duration = .seconds(60)) throws(LeakCountError)
    -> LeakReport
  {
    try leaks(since: mark, scopes: nil, attributing: false, timeout: timeout)
  }

  /// ``leaks(since:timeout:)`` narrowed to the cycles holding an object of one of these leak scopes
  /// (nil: any).
  /// - Parameters:
  ///   - mark: report only cycles that hold an object allocated after this mark.
  ///   - scopes: the leak scopes (nil: any).
  ///   - attributing: name the function that made each cycle (`RETAIN_GRAPH_LEAKS=1`).
  ///   - timeout: how long the child may take.
  ///   - placedHolderSize: the largest holder whose references key a shape by their place
  ///     (``LeakSearch/ShapeKey``); tests lower it to make shapes share a key.
  /// - Returns: the report.
  /// - Throws: ``LeakCountError``, as ``leaks(since:timeout:)``.
  static func leaks(
    since mark: Mark?, scopes: Set<UInt32>?, attributing: Bool = false, timeout: Duration,
    placedHolderSize: Int = LeakSearch.ShapeKey.placedHolderSize
  )
    throws(LeakCountError)
    -> LeakReport
  {
    if let blindness = LeakCountError.blindness(
      censusAvailable: isAvailable, censusStarted: rgc_has_started() != 0,
      scopesAvailable: scopes == nil ? nil : LeakScope.isAvailable)
    {
      throw blindness
    }
    if let scopes, let live = liveObjectsIfNoneOf(scopes, since: mark) {
      // No live object of the scopes: no leaked cycle can hold one, and the count (a fork, a walk
      // of the whole heap) has nothing to find. A test that leaves nothing behind is checked in
      // the time it takes to copy the census's records.
      return LeakReport(leaks: [], liveObjects: live, leakedObjects: 0, unexplained: .init())
    }
    // Which modules are dependencies' is read from the file system in this process, not in the
    // forked child (Foundation's locks may be held by other threads when it forks).
    if attributing { _ = DeclaringCode.dependencyModules }
    CensusRuntime.prepareForFork()
    // A heap-wide operation of another thread (a retainer search in this process) holds every live
    // object while it runs: a child forked then counts those holds as holders from outside, and the
    // leaks they hold go unreported. The count forks when none runs (waiting at most half its
    // time); none starts until it ends.
    let start = ContinuousClock.now
    let forked = HeapWideRetains.excluded(waitingUntil: start + timeout / 2) { _ in
      Result { () throws(ForkedWalkError) -> [UInt8] in
        try ForkedChild.run(
          timeout: max(timeout - (ContinuousClock.now - start), timeout / 2), standardError: nil,
          cancellation: nil
        ) { _ in
          let report = CensusTable.unrecorded {
            LeakSearch.report(
              since: mark?.sequence ?? 0, scopes: scopes, attributing: attributing,
              placedHolderSize: placedHolderSize)
          }
          return LeakReportTransfer.encode(report)
        }
      }
    }
    let bytes: [UInt8]
    do {
      bytes = try forked.get()
    } catch {
      throw .countFailed(error)
    }
    do throws(ColumnReadError) {
      return try LeakReportTransfer.decode(bytes)
    } catch {
      throw .countFailed(
        .malformedData("the leak report (\(bytes.count) bytes) could not be read: \(error.message)"))
    }
  }

  /// How many objects the census records, when none of them was allocated in one of `scopes` (at
  /// or after `mark`); nil when one was.
  static func liveObjectsIfNoneOf(_ scopes: Set<UInt32>, since mark: Mark?) -> Int? {
    let since = mark?.sequence ?? 0
    return CensusTable.unrecorded {
      CensusTable.withLiveRecords { records in
        records.contains { $0.sequence >= since && scopes.contains($0.scope) } ? nil : records.count
      }
    }
  }

  /// ``leaks(since:timeout:)`` read in this process, for a quiet moment: no other thread may
  /// change, allocate or release the objects the census recorded while it runs (it reads their
  /// fields and strong counts as they are).
  /// - Parameter mark: report only cycles that hold an object allocated after this mark.
  /// - Returns: the report.
  public static func leaksInThisProcess(since mark: Mark? = nil) -> LeakReport {
    CensusTable.unrecorded { LeakSearch.report(since: mark?.sequence ?? 0) }
  }
}

extension HeapCensus {
  /// The addresses of every object the count finds garbage (tests compare them with a brute-force
  /// reachability), read in a forked child.
  package static func garbageAddresses(timeout: Duration = .seconds(60)) throws(ForkedWalkError) -> [UInt] {
    CensusRuntime.prepareForFork()
    let bytes = try ForkedChild.run(timeout: timeout, standardError: nil, cancellation: nil) { _ in
      CensusTable.unrecorded {
        let addresses: [UInt] = HeapWideRetains.during {
          let accounting = LeakSearch.count().0
          return accounting.population.addresses.indices.filter { accounting.isGarbage[$0] }.map {
            accounting.population.addresses[$0]
          }
        }
        return addresses.withUnsafeBytes { Array($0) }
      }
    }
    guard bytes.count % 8 == 0 else { throw .malformedData("\(bytes.count) bytes are not addresses") }
    return bytes.withUnsafeBytes { Array($0.bindMemory(to: UInt.self)) }
  }
}

extension HeapCensus {
  /// The count with the objects read by their words (``LeakSearch/WordReading``) against the count
  /// that walks every object, in one forked child (tests): how many objects were read by their
  /// words, and each difference (garbage, attributed references, unexplained figures) as a line.
  package static func wordReadingDifferences(timeout: Duration = .seconds(60)) throws(ForkedWalkError)
    -> (objectsRead: Int, differences: [String])
  {
    CensusRuntime.prepareForFork()
    let bytes = try ForkedChild.run(timeout: timeout, standardError: nil, cancellation: nil) { _ in
      CensusTable.unrecorded {
        HeapWideRetains.during { Array(LeakSearch.wordReadingDifferences().utf8) }
      }
    }
    let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    guard let first = lines.first, let read = Int(first) else {
      throw .malformedData("\(bytes.count) bytes are no comparison")
    }
    return (read, Array(lines.dropFirst()))
  }
}

extension LeakSearch {
  /// Both counts, compared (``HeapCensus/wordReadingDifferences(timeout:)``): the number of objects
  /// read by their words, then one line per difference.
  static func wordReadingDifferences() -> String {
    let read: Int = {
      let before = CensusTable.nextSequence
      let (objects, population) = collect(before: before)
      return withExtendedLifetime(objects) {
        WordReading(roots: population.roots, population: population).isRead.count { $0 }
      }
    }()
    let fast = count(readingWords: true).0
    let walked = count(readingWords: false).0
    var differences: [String] = []
    func garbage(_ accounting: Accounting) -> Set<UInt> {
      Set(
        accounting.population.addresses.indices.filter { accounting.isGarbage[$0] }.map {
          accounting.population.addresses[$0]
        })
    }
    func references(_ accounting: Accounting) -> [[UInt]: Int] {
      var counted: [[UInt]: Int] = [:]
      for (holder, target) in zip(accounting.holders, accounting.targets) {
        counted[
          [accounting.population.addresses[Int(holder)], accounting.population.addresses[Int(target)]],
          default: 0] += 1
      }
      return counted
    }
    func name(_ address: UInt) -> String {
      let metadata = UnsafeRawPointer(bitPattern: address).flatMap { CensusRuntime.metadata(ofObjectAt: $0) }
      return typeName(ofMetadata: UInt(bitPattern: metadata))
    }
    let (fastGarbage, walkedGarbage) = (garbage(fast), garbage(walked))
    for address in fastGarbage.subtracting(walkedGarbage) {
      differences.append("garbage only when read by words: \(name(address))")
    }
    for address in walkedGarbage.subtracting(fastGarbage) {
      differences.append("garbage only when walked: \(name(address))")
    }
    let (fastReferences, walkedReferences) = (references(fast), references(walked))
    for (pair, count) in fastReferences where walkedReferences[pair] != count {
      differences.append(
        "\(name(pair[0])) → \(name(pair[1])): \(count) read by words, \(walkedReferences[pair] ?? 0) walked")
    }
    for (pair, count) in walkedReferences where fastReferences[pair] == nil {
      differences.append("\(name(pair[0])) → \(name(pair[1])): 0 read by words, \(count) walked")
    }
    if fast.unexplained != walked.unexplained {
      differences.append("unexplained: \(fast.unexplained) read by words, \(walked.unexplained) walked")
    }
    return ([String(read)] + differences).joined(separator: "\n")
  }
}
