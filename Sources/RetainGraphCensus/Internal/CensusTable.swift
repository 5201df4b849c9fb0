internal import CRetainGraphCensus
internal import Foundation
internal import RetainGraph

/// One live record of the census table, copied out while the table's lock was held.
struct LiveRecord {
  var address: UnsafeRawPointer
  var sequence: UInt64
  var size: UInt64
  var frames: [UnsafeRawPointer]
}

/// The Swift side of the C table: collecting live records under its lock.
enum CensusTable {
  static var isRunning: Bool { rgc_is_running() != 0 }
  static var isInterposed: Bool { rgc_is_interposed() != 0 }
  static var nextSequence: UInt64 { rgc_next_sequence() }

  /// Calls `body` with a copy of the live records allocated in `since..<before` (at most up to the
  /// allocation number current at the call, so that the copy is bounded whatever other threads
  /// allocate meanwhile). Dead records are swept first. The table is locked only while the records
  /// are copied: `body` runs unlocked, so that allocating threads keep sweeping while it reads, and
  /// each copied object's memory (not its life) is kept by an unowned count until `body` returns.
  /// The copies carry no call stacks (``withLockedRecords(since:before:_:)`` does). `body` must not
  /// query the census.
  static func withLiveRecords<R>(
    since: UInt64 = 0, before: UInt64 = .max, _ body: (UnsafeBufferPointer<rgc_record>) throws -> R
  ) rethrows -> R {
    let (buffer, count) = copyRecords(since: since, before: min(before, nextSequence))
    defer {
      rgc_release_records(buffer, count)
      buffer.deallocate()
    }
    return try body(UnsafeBufferPointer(start: buffer, count: count))
  }

  /// With the table locked: the records, each object's memory held, their call stacks dropped.
  private static func copyRecords(since: UInt64, before: UInt64) -> (UnsafeMutablePointer<rgc_record>, Int) {
    rgc_lock()
    defer { rgc_unlock() }
    // Records below `before` may still be being written by their allocating threads: a few more
    // may appear between the count and the copy.
    var capacity = rgc_collect(since, before, nil, 0, 1) + 256
    while true {
      // `allocate` is malloc, not swift_allocObject: it is not recorded.
      let buffer = UnsafeMutablePointer<rgc_record>.allocate(capacity: capacity)
      let count = rgc_collect(since, before, buffer, capacity, 0)
      if count <= capacity {
        for index in 0..<count {
          buffer[index].frames = nil
          buffer[index].frameCount = 0
        }
        rgc_hold_records(buffer, count)
        return (buffer, count)
      }
      buffer.deallocate()
      capacity = count + count / 4
    }
  }

  /// Calls `body` with the live records allocated in `since..<before` (bounded as in
  /// ``withLiveRecords(since:before:_:)``), call stacks included, with the table locked for the
  /// whole call (a sweep would free the call stacks): keep `body` short. `body` must not query the
  /// census.
  static func withLockedRecords<R>(
    since: UInt64 = 0, before: UInt64 = .max, _ body: (UnsafeBufferPointer<rgc_record>) throws -> R
  ) rethrows -> R {
    let before = min(before, nextSequence)
    rgc_lock()
    defer { rgc_unlock() }
    var capacity = rgc_collect(since, before, nil, 0, 1) + 256
    while true {
      let buffer = UnsafeMutablePointer<rgc_record>.allocate(capacity: capacity)
      defer { buffer.deallocate() }
      let count = rgc_collect(since, before, buffer, capacity, 0)
      if count <= capacity {
        return try body(UnsafeBufferPointer(start: buffer, count: count))
      }
      capacity = count + count / 4
    }
  }

  /// Runs `body` without recording this thread's allocations: a query's own objects (arrays, the
  /// walk's graph) stay out of the census.
  static func unrecorded<R>(_ body: () throws -> R) rethrows -> R {
    rgc_pause_this_thread()
    defer { rgc_resume_this_thread() }
    return try body()
  }

  /// Waits a moment so that objects allocated before `rgc_next_sequence()` was read are past their
  /// initialisers before the census reads their fields.
  static func settle() {
    usleep(500)
  }
}
