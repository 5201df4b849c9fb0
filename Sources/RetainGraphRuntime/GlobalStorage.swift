internal import Foundation
internal import RetainGraphSupport
internal import Synchronization

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// The writable segments of every loaded image, where `static let` and global `var` storage lives,
/// and the names of the data symbols there (local symbols, read from each image's `.symtab`). The
/// segments and the names come from the loader and the images (`GlobalStorage+Images.swift`; none
/// without the package trait `BinaryReaders`); this file scans them.
package enum GlobalStorage {
  /// One writable segment of a loaded image (a `PT_LOAD` segment of an ELF image).
  package struct Segment: Sendable {
    package var start: UInt
    package var end: UInt
    /// The image's load bias (`dlpi_addr`) and file path (`/proc/self/exe` for the main program).
    package var bias: UInt
    package var path: String
  }

  /// A word in a writable segment equal to one of the addresses looked for.
  package struct Hit {
    package var wordAddress: UInt
    package var value: UInt
    package var segment: Segment
  }

  /// The words of the writable segments equal to one of `addresses`, in segment order.
  /// `isWanted` is asked for every 16-byte-aligned non-zero word (a heap object's address is).
  package static func scan(_ segments: [Segment], isWanted: (UInt) -> Bool) -> [Hit] {
    var hits: [Hit] = []
    for segment in segments {
      var address = (segment.start + 7) & ~UInt(7)
      while address + 8 <= segment.end {
        let value = UnsafeRawPointer(bitPattern: address).map { $0.load(as: UInt.self) } ?? 0
        if value != 0, value & 0xF == 0, isWanted(value) {
          hits.append(Hit(wordAddress: address, value: value, segment: segment))
        }
        address += 8
      }
    }
    return hits
  }
}

/// Reads words at addresses that may not be mapped (a global whose declared type the walk cannot
/// trust, a pointer it has not verified) without faulting: the kernel copies the word into a pipe,
/// and reports an address it cannot read as `EFAULT` instead of a signal.
package enum ReadableMemory {
  /// The pipe, and the process that made it: a forked child makes its own rather than share the
  /// parent's.
  private struct Pipe {
    var process: pid_t
    var read: Int32
    var write: Int32
  }

  private static let pipe = ForkSafeMutex<Pipe?>(nil)
  /// glibc's `pipe2`, which the Glibc module does not export.
  private static let pipe2 = RuntimeSymbols.function(
    "pipe2", as: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)

  /// The word at `address`, or nil when it cannot be read (or is not 8-byte aligned).
  package static func word(at address: UInt) -> UInt? {
    guard address != 0, address & 7 == 0, let source = UnsafeRawPointer(bitPattern: address) else {
      return nil
    }
    return pipe.withLock { pipe -> UInt? in
      if pipe?.process != getpid() {
        // A child inherited its parent's ends: leave them (the parent's), make its own.
        var ends: [Int32] = [-1, -1]
        guard let pipe2, pipe2(&ends, Int32(O_CLOEXEC | O_NONBLOCK)) == 0 else { return nil }
        pipe = Pipe(process: getpid(), read: ends[0], write: ends[1])
      }
      guard let pipe, write(pipe.write, source, 8) == 8 else { return nil }
      var value: UInt = 0
      guard read(pipe.read, &value, 8) == 8 else { return nil }
      return value
    }
  }

  /// Whether `address` is an object whose class is `wanted` or a subclass of it, read without
  /// trusting any word on the way (each metadata's kind word must say "class", 0, on this platform).
  package static func isInstance(at address: UInt, of wanted: UnsafeRawPointer) -> Bool {
    var metadata = word(at: address)
    for _ in 0..<64 {
      guard let current = metadata, current != 0 else { return false }
      if current == UInt(bitPattern: wanted) { return true }
      guard word(at: current) == 0 else { return false }
      metadata = word(at: current + 8)
    }
    return false
  }
}
