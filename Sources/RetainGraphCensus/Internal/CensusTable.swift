internal import CRetainGraphCensus
internal import Foundation
internal import RetainGraph
internal import RetainGraphProcess
internal import RetainGraphRuntime

/// The Swift side of the C table: collecting live records under its lock.
enum CensusTable {
  static var isRunning: Bool { rgc_is_running() != 0 }
  static var isInterposed: Bool { rgc_is_interposed() != 0 }
  static var nextSequence: UInt64 { rgc_next_sequence() }

  /// Calls `body` with a copy of the live records allocated in `since..<before` (at most up to the
  /// allocation number current at the call, so that the copy is bounded whatever other threads
  /// allocate meanwhile). Dead records are swept first. The table is locked only while the records
  /// are copied (in C, `rgc_copy_live`): `body` runs unlocked, so that allocating threads keep
  /// sweeping while it reads, and each copied object's memory (not its life) is kept by an unowned
  /// count until `body` returns. The copies carry no call stacks. `body` must not query the census.
  ///
  /// With `unheldInForkedChild`, in a forked child (``ForkedProcess/isChild``), where only the
  /// child itself could free an object, no unowned count is taken: taking one writes to every
  /// object's header, which copies every page of the heap (the leak count's choice).
  static func withLiveRecords<R>(
    since: UInt64 = 0, before: UInt64 = .max, unheldInForkedChild: Bool = false,
    _ body: (UnsafeBufferPointer<rgc_record>) throws -> R
  ) rethrows -> R {
    var count = 0
    let held = !(unheldInForkedChild && ForkedProcess.isChild)
    let end = min(before, nextSequence)
    let buffer = held ? rgc_copy_live(since, end, &count) : rgc_copy_live_unheld(since, end, &count)
    defer {
      if let buffer {
        if held { rgc_release_records(buffer, count) }
        free(buffer)
      }
    }
    return try body(UnsafeBufferPointer(start: buffer, count: buffer == nil ? 0 : count))
  }

  /// The return addresses of the call stack recorded when the object at `address` was allocated;
  /// nil when none was recorded.
  static func allocationFrames(of address: UnsafeRawPointer) -> [UnsafeRawPointer]? {
    var frames = [UnsafeMutableRawPointer?](repeating: nil, count: 64)
    let count = frames.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.map { rgc_copy_frames(address, $0, buffer.count) } ?? 0
    }
    guard count > 0 else { return nil }
    return frames[..<count].compactMap { $0.map { UnsafeRawPointer($0) } }
  }

  /// The table's chunks in use, and how many past which an allocating thread waits for the lock to
  /// sweep (tests).
  static var chunks: (live: Int, waitsPast: Int) {
    var live: UInt64 = 0
    var afterSweep: UInt64 = 0
    var factor: UInt64 = 0
    var minimum: UInt64 = 0
    rgc_chunk_counts(&live, &afterSweep, &factor, &minimum)
    return (Int(live), Int(max(minimum, factor * afterSweep)))
  }

  /// The metadata of each object the table still records from `since` on, dead or alive, read
  /// under the lock without sweeping first (tests: what the last sweep left). A dead object's
  /// memory, metadata included, is kept while it is recorded.
  static func recordedMetadataWithoutSweeping(since: UInt64) -> [UnsafeRawPointer] {
    unrecorded {
      var capacity = 1_024
      while true {
        // Filled by the table (C): each record written before it is read.
        let records = UnsafeMutableBufferPointer<rgc_record>.allocate(capacity: capacity)
        defer { records.deallocate() }
        var metadata: [UnsafeRawPointer] = []
        metadata.reserveCapacity(capacity)
        rgc_lock()
        let found = rgc_collect(since, .max, records.baseAddress, capacity, 0)
        if found <= capacity {
          for record in records.prefix(found) {
            if let type = CensusRuntime.metadata(ofObjectAt: record.object) { metadata.append(type) }
          }
        }
        rgc_unlock()
        if found <= capacity { return metadata }
        capacity = found * 2
      }
    }
  }

  /// Counts the current thread's waits for the table's lock once the table fell far behind, for
  /// ``waitsGoingOn`` (tests).
  static func countWaitsOnThisThread() { rgc_test_count_waits_on_this_thread() }

  /// How many waits of threads that ``countWaitsOnThisThread()`` are going on (tests).
  static var waitsGoingOn: Int { Int(rgc_test_counted_waits()) }

  /// Runs `body` with the table locked, as a long query would (tests).
  static func whileLocked<R>(_ body: () throws -> R) rethrows -> R {
    rgc_lock()
    defer { rgc_unlock() }
    return try body()
  }

  /// Runs `body` without recording this thread's allocations: a query's own objects (arrays, the
  /// walk's graph) stay out of the census.
  static func unrecorded<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
    rgc_pause_this_thread()
    defer { rgc_resume_this_thread() }
    return try body()
  }

  /// The bytes of a recorded object that may hold its references: what `malloc` gave it, which
  /// may be more than the size the census recorded. An array's storage takes all of it as capacity
  /// (the standard library asks `malloc_usable_size`), so an element appended later can lie past
  /// the recorded size, in an array grown by code compiled with optimisation (which calls the
  /// allocator itself). The slack past the elements was never written: a word there that equals an
  /// address is stale, a rare false match, where reading less missed a held element.
  static func readableSize(ofObjectAt object: UnsafeRawPointer, recorded: Int) -> Int {
    max(recorded, rgc_allocation_size(object))
  }

  /// Waits a moment so that objects allocated before `rgc_next_sequence()` was read are past their
  /// initialisers before the census reads their fields.
  static func settle() {
    usleep(500)
  }
}
