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

  /// Calls `body` with the live records allocated in `since..<before`, with the table locked (so
  /// that no record is forgotten, and no object's memory freed, meanwhile). Dead records are swept
  /// first. `body` must not query the census.
  static func withLiveRecords<R>(
    since: UInt64 = 0, before: UInt64 = .max, _ body: (UnsafeBufferPointer<rgc_record>) throws -> R
  ) rethrows -> R {
    rgc_lock()
    defer { rgc_unlock() }
    var capacity = rgc_collect(since, before, nil, 0, 1) + 256
    while true {
      // `allocate` is malloc, not swift_allocObject: it is not recorded.
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
