import Foundation
import RetainGraphTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where `--output` and standard output go: devices, FIFOs, symlinks, existing files' modes, long
/// names, a full device and a closed pipe (issue 20, items 6 and 7).
@Suite struct OutputDestinationTests {
  static func fileType(_ path: String) -> mode_t? {
    var status = stat()
    guard lstat(path, &status) == 0 else { return nil }
    return status.st_mode & S_IFMT
  }

  static func mode(_ path: String) -> mode_t? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    return status.st_mode & 0o7777
  }

  /// The viper-module sample's snapshot and its SVG as the CLI writes it to standard output.
  static func snapshotAndSVG(in directory: URL) throws -> (snapshot: URL, svg: Data) {
    let snapshot = try CLITests.snapshot(of: "viper-module", in: directory)
    let svg = try CLITests.run("render", snapshot.path, "--format", "svg")
    #expect(svg.status == 0)
    return (snapshot, svg.stdout)
  }

  // Run as root (CI containers are), the old write-then-rename replaced /dev/null with a file.
  @Test func aDeviceIsWrittenDirectlyAndStaysADevice() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let snapshot = try CLITests.snapshot(of: "viper-module", in: directory)
    #expect(Self.fileType("/dev/null") == S_IFCHR)
    for format in ["svg", "text", "json", "dot"] {
      let run = try CLITests.run("render", snapshot.path, "--format", format, "--output", "/dev/null")
      #expect(run.status == 0, "\(run.stderr)")
      #expect(run.stderr.isEmpty)
      #expect(Self.fileType("/dev/null") == S_IFCHR, "/dev/null is still a character device")
    }
    #expect(Self.contents(of: "/dev").allSatisfy { !$0.hasPrefix(".null.") }, "no temporary file in /dev")
  }

  static func contents(of path: String) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
  }

  @Test func aFIFOIsWrittenToItsReader() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (snapshot, svg) = try Self.snapshotAndSVG(in: directory)
    let fifo = directory.appendingPathComponent("picture.svg").path
    #expect(mkfifo(fifo, 0o600) == 0)
    // The reader opens first (non-blocking, so the open returns at once) and stays open while the
    // command writes: the SVG (a few KB) fits in the pipe's buffer and waits there for the read below.
    let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    #expect(reader >= 0)
    defer { close(reader) }
    let run = try CLITests.run("render", snapshot.path, "--format", "svg", "--output", fifo)
    #expect(run.status == 0, "\(run.stderr)")
    var received = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = read(reader, &buffer, buffer.count)
      if count <= 0 { break }
      received.append(contentsOf: buffer[..<count])
    }
    #expect(received == svg, "the reader got the whole picture")
    #expect(Self.fileType(fifo) == S_IFIFO, "the FIFO is still a FIFO")
    #expect(CLITests.contents(of: directory) == ["picture.svg", "viper-module.json"])
  }

  @Test func aSymlinkIsFollowedToItsTarget() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (snapshot, svg) = try Self.snapshotAndSVG(in: directory)
    try FileManager.default.createDirectory(
      at: directory.appendingPathComponent("pictures"), withIntermediateDirectories: false)
    let target = directory.appendingPathComponent("pictures/target.svg")
    try Data("old".utf8).write(to: target)
    // link → pictures/relative-link → target.svg: a chain, the second link relative to its folder.
    let relative = directory.appendingPathComponent("pictures/relative-link").path
    let link = directory.appendingPathComponent("link.svg").path
    #expect(symlink("target.svg", relative) == 0)
    #expect(symlink(relative, link) == 0)
    let run = try CLITests.run("render", snapshot.path, "--format", "svg", "--output", link)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(try Data(contentsOf: target) == svg, "the target has the new contents")
    #expect(Self.fileType(link) == S_IFLNK)
    #expect(Self.fileType(relative) == S_IFLNK)
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == relative)

    // A dangling link: its target is created.
    let dangling = directory.appendingPathComponent("dangling.svg").path
    #expect(symlink("created.svg", dangling) == 0)
    let created = try CLITests.run("render", snapshot.path, "--format", "svg", "--output", dangling)
    #expect(created.status == 0, "\(created.stderr)")
    #expect(Self.fileType(dangling) == S_IFLNK)
    #expect(try Data(contentsOf: directory.appendingPathComponent("created.svg")) == svg)
    #expect(
      CLITests.contents(of: directory) == [
        "created.svg", "dangling.svg", "link.svg", "pictures", "viper-module.json",
      ])
    #expect(
      CLITests.contents(of: directory.appendingPathComponent("pictures")) == ["relative-link", "target.svg"])
  }

  @Test func anExistingFileKeepsItsMode() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (snapshot, svg) = try Self.snapshotAndSVG(in: directory)
    for mode: mode_t in [0o600, 0o640, 0o755] {
      let file = directory.appendingPathComponent("picture-\(String(mode, radix: 8)).svg").path
      #expect(FileManager.default.createFile(atPath: file, contents: Data("old".utf8)))
      #expect(chmod(file, mode) == 0)
      let run = try CLITests.run("render", snapshot.path, "--format", "svg", "--output", file)
      #expect(run.status == 0, "\(run.stderr)")
      #expect(Self.mode(file) == mode, "mode \(String(mode, radix: 8)) kept")
      #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == svg)
    }
  }

  @Test func aLongFileNameFitsItsTemporaryName() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (snapshot, svg) = try Self.snapshotAndSVG(in: directory)
    // 224 bytes failed before (the temporary name was longer than NAME_MAX); 255 is the longest name.
    for length in [224, 255] {
      let name =
        String(repeating: "é", count: (length - 4) / 2) + String(repeating: "a", count: length % 2) + ".svg"
      #expect(name.utf8.count == length)
      let file = directory.appendingPathComponent(name)
      let run = try CLITests.run("render", snapshot.path, "--format", "svg", "--output", file.path)
      #expect(run.status == 0, "\(run.stderr)")
      #expect(try Data(contentsOf: file) == svg)
    }
    #expect(CLITests.contents(of: directory).count == 3, "no temporary file left behind")
  }

  @Test func aDirectoryIsRefused() throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let snapshot = try CLITests.snapshot(of: "viper-module", in: directory)
    let run = try CLITests.run("render", snapshot.path, "--format", "svg", "--output", directory.path)
    #expect(run.status == 2)
    assertGolden(run.stderr(replacing: directory), named: "output-directory")
    #expect(CLITests.contents(of: directory) == ["viper-module.json"])
  }

  // MARK: standard output that cannot be written

  /// glibc's `pipe2`, which the Glibc module does not export (RTLD_DEFAULT is the null handle).
  static let pipe2: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32)? = dlsym(nil, "pipe2").map
  {
    unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)
  }

  @Test(arguments: [
    ["render", "SNAPSHOT", "--format", "dot"], ["render", "SNAPSHOT", "--format", "png", "--output", "-"],
    ["check", "SNAPSHOT"], ["sample", "viper-module"], ["samples"], ["check", "--help"],
  ])
  func aFullDeviceIsAnErrorNotATrap(_ arguments: [String]) throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let snapshot = try CLITests.snapshot(of: "viper-module", in: directory)
    let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
    defer { try? full.close() }
    let run = try CLITests.run(
      arguments: arguments.map { $0 == "SNAPSHOT" ? snapshot.path : $0 }, stdout: full)
    #expect(run.exited, "ended by signal \(run.status)")
    #expect(run.status == 2)
    assertGolden(run.stderr, named: "full-device")
  }

  @Test(arguments: [
    ["render", "SNAPSHOT", "--format", "dot"], ["check", "SNAPSHOT"], ["samples"], ["render", "--help"],
  ])
  func aClosedPipeIsAnErrorNotATrap(_ arguments: [String]) throws {
    let directory = try CLITests.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let snapshot = try CLITests.snapshot(of: "viper-module", in: directory)
    // A pipe whose reader is gone before the command writes: every write fails with EPIPE. Both
    // ends close on exec, so no command another test starts meanwhile can hold the reader open.
    var ends: [Int32] = [-1, -1]
    let pipe2 = try #require(Self.pipe2, "glibc exports pipe2")
    #expect(pipe2(&ends, O_CLOEXEC) == 0)
    close(ends[0])
    let writer = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
    let run = try CLITests.run(
      arguments: arguments.map { $0 == "SNAPSHOT" ? snapshot.path : $0 }, stdout: writer,
      ignoringSIGPIPE: true)
    #expect(run.exited, "ended by signal \(run.status)")
    #expect(run.status == 141, "128 + SIGPIPE, what a shell reports for a closed pipe")
    assertGolden(run.stderr, named: "closed-pipe")
  }
}
