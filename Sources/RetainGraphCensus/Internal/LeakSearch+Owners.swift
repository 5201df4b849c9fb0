internal import RetainGraph
internal import RetainGraphRuntime

// What the census sees of a type's live instances, to choose between the two edits of a break with
// an alternative (`Cycle.Break.alternative`): a leaked cycle cannot tell which of them keeps the
// program working, but the instances still in use can (issue 40.4).

extension LeakSearch {
  /// A break whose cycle gave two edits: the metadata of the captured object and of its holder, and
  /// where the fix is among the analysed sections.
  struct TwoEdits {
    /// The metadata of the object the break's closure captures (`FeedSession`).
    var capturedMetadata: UInt
    /// The metadata of what holds the break's reference: the closure's context, or the object
    /// that stores a closure whose only capture is the object (`FeedSocket`, its `onText`).
    var holderMetadata: UInt
    /// The index of the fix's section, and of the fix in it.
    var section: Int
    var fix: Int
  }

  /// How the live (not garbage) instances of one type are owned right now.
  enum LiveOwners: Equatable {
    /// None is alive.
    case noneAlive
    /// `onlyByClosures` of the `live` instances read are held by the break's kind of holder alone
    /// (closures of the same function, or objects of the type that stores the closure): weakening
    /// the closure's capture would free them while in use.
    case someOnlyByClosures(live: Int, onlyByClosures: Int)
    /// Every one of the `live` instances read has another owner (a class instance, a collection's
    /// buffer, a stack, a global).
    case everyOneOtherwiseOwned(live: Int)
  }

  /// The most live instances of a type read for ``LiveOwners``.
  static let liveInstancesRead = 256

  /// How the live instances of the class `metadata` are owned, from the count's columns: an
  /// instance whose strong count is all references from holders of the class (or closure context)
  /// `holder` is owned only by the break's kind of closure.
  static func liveOwners(ofMetadata metadata: UInt, ownedBy holder: UInt, in accounting: Accounting)
    -> LiveOwners
  {
    let population = accounting.population
    var live: [Int] = []
    for index in 0..<population.recordedCount where !accounting.isGarbage[index] {
      guard let address = UnsafeRawPointer(bitPattern: population.addresses[index]),
        CensusRuntime.metadata(ofObjectAt: address).map({ UInt(bitPattern: $0) }) == metadata
      else { continue }
      live.append(index)
      if live.count == liveInstancesRead { break }
    }
    guard !live.isEmpty else { return .noneAlive }
    var position: [Int32: Int] = [:]
    for (number, index) in live.enumerated() { position[Int32(index)] = number }
    var fromHolders = [Int](repeating: 0, count: live.count)
    var otherHolder = [Bool](repeating: false, count: live.count)
    for (holding, target) in zip(accounting.holders, accounting.targets) {
      guard let number = position[target] else { continue }
      let holderMetadata = UnsafeRawPointer(bitPattern: population.addresses[Int(holding)]).flatMap {
        CensusRuntime.metadata(ofObjectAt: $0)
      }
      if holderMetadata.map({ UInt(bitPattern: $0) }) == holder {
        fromHolders[number] += 1
      } else {
        otherHolder[number] = true
      }
    }
    // All of its strong count: no other recorded holder, and nothing from outside (a stack, a
    // global, storage the census does not record).
    let onlyByClosures = live.indices.count { number in
      !otherHolder[number] && fromHolders[number] > 0
        && population.strongCounts[live[number]] == fromHolders[number]
    }
    return onlyByClosures > 0
      ? .someOnlyByClosures(live: live.count, onlyByClosures: onlyByClosures)
      : .everyOneOtherwiseOwned(live: live.count)
  }

  /// `analysed` with each of its two-edit breaks decided where the live instances tell: the other
  /// edit first when some live instance is owned only by closures, the break's alone when every one
  /// has another owner; both, as the walk gave them, when none is alive.
  static func decidingTwoEdits(_ analysed: Analysed, owners: (UInt, UInt) -> LiveOwners) -> Analysed {
    guard !analysed.twoEdits.isEmpty else { return analysed }
    var decided = analysed
    for edits in analysed.twoEdits {
      let decision: LeakReport.Decision
      switch owners(edits.capturedMetadata, edits.holderMetadata) {
      case .noneAlive: continue
      case .someOnlyByClosures(let live, let only):
        decision = .secondEdit(live: live, ownedOnlyByClosures: only)
      case .everyOneOtherwiseOwned(let live): decision = .firstEdit(live: live)
      }
      decided.sections[edits.section].fixes[edits.fix].alternative?.decision = decision
    }
    return decided
  }
}
