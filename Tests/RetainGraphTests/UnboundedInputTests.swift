import Foundation
import Testing

@testable import RetainGraph

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Inputs that never end (a device, a pipe fed forever) are read up to a cap and end in a clear
/// error, never in memory exhaustion (issue 29, item 8).
@Suite struct UnboundedInputTests {
  /// A pipe that a thread fills with `prefix`, then `filler` forever (until the reader closes it).
  private static func endlessPipe(prefix: String, filler: UInt8) -> Int32 {
    var ends: [Int32] = [0, 0]
    #expect(pipe(&ends) == 0)
    let (reader, writer) = (ends[0], ends[1])
    Thread.detachNewThread {
      // A closed reader makes write fail with EPIPE; this process ignores SIGPIPE (swift test does).
      signal(SIGPIPE, SIG_IGN)
      var bytes = Array(prefix.utf8)
      defer { close(writer) }
      guard bytes.withUnsafeBytes({ write(writer, $0.baseAddress, $0.count) }) == bytes.count else { return }
      bytes = [UInt8](repeating: filler, count: 1 << 16)
      while bytes.withUnsafeBytes({ write(writer, $0.baseAddress, $0.count) }) > 0 {}
    }
    return reader
  }

  @Test func aValueThatNeverEndsStopsAtTheCap() throws {
    let reader = Self.endlessPipe(
      prefix: #"{"format":"retain-graph","version":2,"nodes":[{"type":""#, filler: UInt8(ascii: "a"))
    defer { close(reader) }
    do {
      _ = try JSONReader.read(descriptor: reader, windowSize: 1 << 16, maxWindow: 1 << 21)
      Issue.record("an endless value was read as a snapshot")
    } catch {
      #expect(
        error.message == "not a snapshot: one value at byte 46 is longer than 2 MB (reading stopped there)")
    }
  }

  @Test func zeroBytesAreNotJSON() throws {
    let reader = open("/dev/zero", O_RDONLY)
    defer { close(reader) }
    #expect(reader >= 0)
    do {
      _ = try JSONReader.read(descriptor: reader)
      Issue.record("/dev/zero was read as a snapshot")
    } catch {
      #expect(error.message == "not JSON: the text starts with zero bytes")
    }
  }

  @Test func aTextInUTF16ThatNeverEndsStopsAtTheCap() throws {
    // "{" in UTF-16LE, then spaces ("\u{20}\u{0}") forever: converted whole, so capped.
    var ends: [Int32] = [0, 0]
    #expect(pipe(&ends) == 0)
    let (reader, writer) = (ends[0], ends[1])
    defer { close(reader) }
    Thread.detachNewThread {
      signal(SIGPIPE, SIG_IGN)
      defer { close(writer) }
      var bytes: [UInt8] = [UInt8(ascii: "{"), 0]
      for _ in 0..<(1 << 15) { bytes += [0x20, 0] }
      while bytes.withUnsafeBytes({ write(writer, $0.baseAddress, $0.count) }) > 0 {}
    }
    do {
      _ = try JSONReader.read(descriptor: reader, maxConvertedText: 1 << 21)
      Issue.record("an endless UTF-16 text was read as a snapshot")
    } catch {
      #expect(
        error.message
          == "not a snapshot: its text in UTF-16 or UTF-32 is longer than 2 MB (reading stopped there; "
          + "write it in UTF-8, which is read in a window)")
    }
  }
}
