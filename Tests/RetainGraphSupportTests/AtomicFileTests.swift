import Foundation
import RetainGraphSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// `AtomicFile` on its own, without the command line or Graphviz in front of it (the command line's
/// tests, `OutputDestinationTests`, write devices, FIFOs and full devices through `--output`): what
/// it leaves on disk and the failure it gives, as a value.
@Suite struct AtomicFileTests {
  /// A new empty directory, removed after `body`.
  private func inDirectory(_ body: (String) throws -> Void) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "atomic-file-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try body(directory)
  }

  private func contents(_ path: String) throws -> String {
    try String(contentsOfFile: path, encoding: .utf8)
  }

  @Test func aFileIsReplacedWholeAndKeepsItsMode() throws {
    try inDirectory { directory in
      let path = directory + "/out.txt"
      try AtomicFile.write(Data("first".utf8), to: URL(fileURLWithPath: path))
      #expect(chmod(path, 0o600) == 0)
      try AtomicFile.write(Data("second".utf8), to: URL(fileURLWithPath: path))
      #expect(try contents(path) == "second")
      var status = stat()
      #expect(stat(path, &status) == 0 && status.st_mode & 0o7777 == 0o600)
      // No temporary file is left beside it.
      #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["out.txt"])
    }
  }

  @Test func aDanglingLinkGetsItsTargetAndStaysALink() throws {
    try inDirectory { directory in
      let link = directory + "/link.txt"
      #expect(symlink("target.txt", link) == 0)
      try AtomicFile.write(Data("through the link".utf8), to: URL(fileURLWithPath: link))
      var status = stat()
      #expect(lstat(link, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK)
      #expect(try contents(directory + "/target.txt") == "through the link")
    }
  }

  @Test func aDirectoryIsRefusedByName() throws {
    try inDirectory { directory in
      let failure = try #require(throws: AtomicFile.Failure.self) {
        try AtomicFile.write(Data("x".utf8), to: URL(fileURLWithPath: directory))
      }
      #expect(failure == AtomicFile.Failure(path: directory, reason: "it is a directory"))
      #expect(failure.description == "cannot write \(directory): it is a directory")
    }
  }

  @Test func aLinkLoopIsAFailureNotAHang() throws {
    try inDirectory { directory in
      let first = directory + "/a"
      #expect(symlink("b", first) == 0)
      #expect(symlink("a", directory + "/b") == 0)
      let failure = try #require(throws: AtomicFile.Failure.self) {
        try AtomicFile.write(Data("x".utf8), to: URL(fileURLWithPath: first))
      }
      #expect(failure.path == first)
      #expect(failure.reason == String(cString: strerror(ELOOP)))
    }
  }

  /// A 250-byte name of two-byte characters: the temporary name (`.NAME.RANDOM.tmp`) must stay
  /// within 255 bytes, so the name is shortened, on a character boundary, and the write succeeds.
  @Test func aLongNameOfWideCharactersIsWritten() throws {
    try inDirectory { directory in
      let name = String(repeating: "é", count: 125)
      #expect(name.utf8.count == 250)
      let path = directory + "/" + name
      try AtomicFile.write(Data("long".utf8), to: URL(fileURLWithPath: path))
      #expect(try contents(path) == "long")
      #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == [name])
    }
  }

  @Test func writeAllWritesEveryByteToAPipe() throws {
    var descriptors: [Int32] = [0, 0]
    #expect(pipe(&descriptors) == 0)
    let (readEnd, writeEnd) = (descriptors[0], descriptors[1])
    defer { close(readEnd) }
    // More than a pipe holds at once (64 KB on Linux): the writer waits for this thread to read.
    let data = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    let written = WrittenFlag()
    Thread {
      written.set(AtomicFile.writeAll(data, to: writeEnd))
      close(writeEnd)
    }.start()
    let read = FileHandle(fileDescriptor: readEnd, closeOnDealloc: false).readDataToEndOfFile()
    #expect(read == data)
    #expect(written.value == true)
  }
}

/// Whether the writer thread's `writeAll` succeeded (set before it closes the pipe).
private final class WrittenFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var result: Bool?
  func set(_ value: Bool) { lock.withLock { result = value } }
  var value: Bool? { lock.withLock { result } }
}
