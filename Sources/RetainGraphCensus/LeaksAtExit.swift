internal import CRetainGraphCensus
internal import Foundation
internal import RetainGraph
internal import RetainGraphKnownCycles
internal import RetainGraphRuntime

/// `RETAIN_GRAPH_LEAKS=1`: the census records from the process's start (with call stacks), and at
/// exit every leaked cycle is printed to standard error with the function that made it (the test,
/// in a test run), and the process exits with status 1 when there is one, as `leaks --atExit` does.
/// A cycle the known-cycles file of the current directory's package lists passes until its entry
/// expires (`swift test` runs in the package's root).
///
/// The C side starts the census in a load-time constructor and registers the exit handler, which
/// calls ``reportLeaksAtExit()`` through its C name.
enum LeaksAtExit {
  /// The environment variable, and the value that turns it on.
  static let variable = "RETAIN_GRAPH_LEAKS"

  /// The report at exit: its text, the count's report (nil when the count failed; the text says
  /// why) and how many cycles fail the run (those the known-cycles file `knownFile` lists, unexpired,
  /// do not).
  static func reportAtExit(timeout: Duration, knownFile: String? = KnownCycles.workingDirectoryFile) -> (
    text: String, report: LeakReport?, cycles: Int?
  ) {
    do {
      let report = try HeapCensus.leaks(since: nil, scopes: nil, attributing: true, timeout: timeout)
      let (text, cycles) = self.report(of: report, knownFile: knownFile)
      return (text, report, cycles)
    } catch {
      return ("\(variable): no leaked cycles were looked for at exit: \(error)", nil, nil)
    }
  }

  /// The report's text for `report` (a count that attributed its cycles) and how many cycles fail
  /// the run.
  static func report(of report: LeakReport, knownFile: String?) -> (text: String, cycles: Int?) {
    let own = programs(report)
    var text =
      own.isEmpty
      ? "\(variable): no leaked cycles at exit among \(LeakReport.number(report.liveObjects)) live objects "
        + "the census recorded"
      : "\(variable): \(own.description)"
    let libraries = report.leaks.filter(isLibraries)
    if !libraries.isEmpty {
      let count = libraries.reduce(0) { $0 + $1.count }
      text +=
        "\n\n\(variable): not counted, \(LeakReport.number(count)) leaked cycle\(count == 1 ? "" : "s") "
        + "whose every reference a library declares, none this package's code (libraries' own loops, as "
        + "XCTest's test runs and their test cases):"
      for leak in libraries {
        text += "\n  \(leak.cycleTypes.joined(separator: ", ")) (\(leak.objectCount) objects)"
        if leak.count > 1 { text += " × \(LeakReport.number(leak.count))" }
        if let modules = leak.libraryModules, !modules.isEmpty {
          text += ": references of \(DeclaringCode.libraryNames(of: modules))"
          // A dependency's loop your code made (a channel a test helper never closes) says where;
          // XCTest's own are made by XCTest's runner, around your test case's initialiser.
          if !modules.contains("XCTest"), let madeBy = leak.madeBy { text += ", made by \(madeBy)" }
        } else if let madeBy = leak.madeBy {
          text += ", made by \(madeBy)"
        }
      }
    }
    guard let knownFile else { return (text, own.cycleCount) }
    switch KnownCycles.verdict(on: own.signatures, file: knownFile) {
    case .failure(let error):
      return ("\(variable): \(error.checkFailureLine)\n\n" + text, own.cycleCount)
    case .success(let verdict):
      guard !own.isEmpty else { return (text, 0) }
      let lines = verdict.lines(noun: "leaked cycle").joined(separator: "\n")
      return (text + "\n\n\(variable): " + lines, verdict.new.count + verdict.expired.count)
    }
  }

  /// The most lines printed at exit: a longer report is written to a file (``reportFile``) and a
  /// summary of it printed.
  static let screenLines = 40

  /// The most shapes of libraries' cycles printed a line each: with more (an XCTest suite's test
  /// classes, each with its own), the report is summarised and they are one line.
  static let librariesOnScreen = 5

  /// The most shapes the summary lists, and the longest line it prints.
  static let summaryShapes = 20
  static let summaryWidth = 160

  /// What is printed at exit for the report `text` of `report`: the text itself when it fits
  /// ``screenLines`` and lists at most ``librariesOnScreen`` shapes of libraries' cycles; otherwise a
  /// summary that fits a screen, naming `file`, where the whole text goes.
  static func printed(
    _ text: String, of report: LeakReport?, cycles: Int?, file: String, pass: String = passName
  ) -> (printed: String, toFile: Bool) {
    guard let report,
      text.split(separator: "\n", omittingEmptySubsequences: false).count > screenLines
        || report.leaks.count(where: isLibraries) > librariesOnScreen
    else {
      return (text, false)
    }
    return (summary(of: report, cycles: cycles, file: file, pass: pass), true)
  }

  /// A summary of `report` that fits a screen: its header, one line per shape of the program's (how
  /// many, its types, who made it, its first fix; the largest ``summaryShapes``), the libraries'
  /// cycles in one line, what fails the run, and where the whole report is.
  static func summary(of report: LeakReport, cycles: Int?, file: String, pass: String) -> String {
    let own = programs(report)
    var lines: [String] = []
    let header = own.description.prefix { $0 != "\n" }
    lines.append("\(variable) (\(pass)): \(own.isEmpty ? "no leaked cycles at exit" : String(header))")
    for leak in own.leaks.prefix(summaryShapes) {
      // Short names: without generic arguments (the whole report has them).
      let types = leak.cycleTypes.map { TypeNames.withoutGenericArguments($0) }
      var line = "  \(LeakReport.number(leak.count)) × \(types.joined(separator: ", "))"
      if let madeBy = leak.madeBy { line += ", made by \(madeBy)" }
      if let fix = leak.fixes.first { line += ": \(fix)" }
      lines.append(shortened(line))
    }
    if own.leaks.count > summaryShapes {
      let rest = own.leaks.dropFirst(summaryShapes)
      lines.append(
        "  and \(LeakReport.number(rest.count)) more shapes (\(LeakReport.number(rest.reduce(0) { $0 + $1.count })) "
          + "leaked cycles)")
    }
    let libraries = report.leaks.filter(isLibraries)
    if !libraries.isEmpty {
      var counts: [(name: String, count: Int)] = []
      for leak in libraries {
        let name = leak.libraryModules.map { DeclaringCode.libraryNames(of: $0) } ?? "library types"
        if let index = counts.firstIndex(where: { $0.name == name }) {
          counts[index].count += leak.count
        } else {
          counts.append((name, leak.count))
        }
      }
      let total = libraries.reduce(0) { $0 + $1.count }
      let named = counts.sorted { $0.count > $1.count }.map { "\($0.name) × \(LeakReport.number($0.count))" }
      lines.append(
        shortened(
          "not counted: \(LeakReport.number(total)) leaked cycle\(total == 1 ? "" : "s") whose every reference a "
            + "library declares (\(named.joined(separator: ", ")))"))
    }
    if let cycles, cycles != own.cycleCount {
      lines.append("\(LeakReport.number(cycles)) of them fail the run (the others are known cycles)")
    }
    lines.append("the whole report, every trace, fix and allocation site: \(file)")
    return lines.joined(separator: "\n")
  }

  /// `line`, cut to ``summaryWidth`` characters.
  private static func shortened(_ line: String) -> String {
    line.count <= summaryWidth ? line : line.prefix(summaryWidth - 1) + "…"
  }

  /// Which pass of `swift test` this process is: it runs the test binary once for XCTest and once
  /// for Swift Testing (`--testing-library swift-testing`), and each prints its own report.
  static var passName: String {
    let arguments = CommandLine.arguments
    if let index = arguments.firstIndex(of: "--testing-library"), index + 1 < arguments.count {
      return arguments[index + 1] == "swift-testing" ? "the Swift Testing pass" : "the XCTest pass"
    }
    let program = arguments.first.map { ($0 as NSString).lastPathComponent } ?? "this process"
    return program.hasSuffix(".xctest") ? "the XCTest pass" : program
  }

  /// Where the whole report goes when it is summarised: one file per `swift test` run, which every
  /// pass appends to (they share the parent process), in the current directory's `.build` (the
  /// package's), or the temporary folder.
  static var reportFile: String {
    let files = FileManager.default
    let build = files.currentDirectoryPath + "/.build"
    var isFolder: ObjCBool = false
    let folder =
      files.fileExists(atPath: build, isDirectory: &isFolder) && isFolder.boolValue
      ? build : NSTemporaryDirectory()
    return (folder as NSString).appendingPathComponent("retain-graph-leaks-\(getppid()).txt")
  }

  /// Appends `text` to `file` under a heading naming this pass; false when it could not be written.
  static func append(_ text: String, to file: String) -> Bool {
    let heading = "== \(variable) at the exit of \(passName) (process \(getpid()))\n"
    let descriptor = open(file, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    let bytes = Array((heading + text + "\n\n").utf8)
    var written = 0
    while written < bytes.count {
      let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else { return false }
      written += count
    }
    return true
  }

  /// `report` narrowed to the program's own cycles (``isLibraries(_:)`` false), its leaked objects
  /// theirs.
  static func programs(_ report: LeakReport) -> LeakReport {
    var own = report
    own.leaks = report.leaks.filter { !isLibraries($0) }
    own.leakedObjects = own.leaks.reduce(0) { $0 + $1.totalObjectCount }
    return own
  }

  /// Whether a leaked cycle is libraries' alone: its classes are all defined outside the program,
  /// or no reference on it is declared in the program's own code (``LeakReport/LeakedCycle/libraryModules``).
  static func isLibraries(_ leak: LeakReport.LeakedCycle) -> Bool {
    leak.isOfLibraryTypesOnly == true || leak.libraryModules != nil
  }

  /// The function a cycle was made by: from the allocation call stack of its oldest object, the
  /// outermost frame of the innermost run of frames in the program's own image (a test function,
  /// or `closure #1 in` one), leaving out the thunks test frameworks generate around tests.
  /// - Parameter frames: return addresses, innermost first.
  /// - Returns: the function's name, or nil when no frame is in the program's image.
  static func maker(frames: [UnsafeRawPointer]) -> String? {
    var found: String?
    var inRun = false
    for frame in frames {
      let isOwn = rgc_in_census_image(frame) != 0
      guard let name = CensusRuntime.functionName(containing: frame - 1) else {
        if inRun && !isOwn { break }
        continue
      }
      if isOwn {
        inRun = true
        if !isGenerated(name) { found = name }
      } else if inRun {
        break
      }
    }
    return found.map(shortName)
  }

  /// A frame's function as a person names it: no signature, no async resumption or other compiler
  /// prefix (``QueuedHolders/withoutCompilerPrefixes(_:)``), closures' signatures dropped
  /// (`SymbolNames.simplify`). `(1) suspend resume partial function for closure #1 () async -> T in
  /// App.Tests.run() async throws -> ()` → `closure #1 in App.Tests.run()`.
  static func shortName(_ raw: String) -> String {
    HeapCensus.withoutSignature(SymbolNames.simplify(QueuedHolders.withoutCompilerPrefixes(raw)))
  }

  /// Whether `name` is a function the compiler or a test framework made around a test (a thunk, a
  /// Swift Testing test container, an XCTest discovery list) rather than one a person wrote.
  static func isGenerated(_ name: String) -> Bool {
    ["thunk", "$test_container", "__🟡", "__allTests", "partial apply"].contains { name.contains($0) }
  }
}

/// Called by the census's exit handler (`RETAIN_GRAPH_LEAKS=1`): prints the report of leaked
/// cycles to standard error and returns how many it found (-1: the count failed). Not for callers.
/// - Returns: the number of leaked cycles, or -1.
@_cdecl("rgc_swift_report_leaks_at_exit")
public func _retainGraphReportLeaksAtExit() -> Int32 {
  let (text, report, cycles) = LeaksAtExit.reportAtExit(timeout: .seconds(120))
  let file = LeaksAtExit.reportFile
  var (printed, toFile) = LeaksAtExit.printed(text, of: report, cycles: cycles, file: file)
  if toFile, !LeaksAtExit.append(text, to: file) {
    // The file could not be written: nothing is lost, the whole report is printed.
    printed = text + "\n\(LeaksAtExit.variable): could not write \(file): \(String(cString: strerror(errno)))"
  }
  FileHandle.standardError.write(Data((printed + "\n").utf8))
  // After the report, so that the cycles it matched count (the listing's own exit handler ran
  // before this one and left it here).
  KnownCycles.Usage.printUnusedIfAsked()
  guard let cycles else { return -1 }
  return Int32(clamping: cycles)
}
