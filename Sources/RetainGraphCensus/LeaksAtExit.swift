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

  /// The report's text and how many cycles fail the run (those the known-cycles file `knownFile`
  /// lists, unexpired, do not); the text says why when the count failed (then the count is nil).
  static func report(timeout: Duration, knownFile: String? = KnownCycles.workingDirectoryFile) -> (
    text: String, cycles: Int?
  ) {
    let report: LeakReport
    do {
      report = try HeapCensus.leaks(since: nil, scopes: nil, attributing: true, timeout: timeout)
    } catch {
      return (
        "\(variable): no leaked cycles were looked for at exit: \(error)", nil
      )
    }
    return self.report(of: report, knownFile: knownFile)
  }

  /// The report's text for `report` (a count that attributed its cycles) and how many cycles fail
  /// the run.
  static func report(of report: LeakReport, knownFile: String?) -> (text: String, cycles: Int?) {
    var own = report
    own.leaks = report.leaks.filter { !isLibraries($0) }
    own.leakedObjects = own.leaks.reduce(0) { $0 + $1.totalObjectCount }
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
          // Who made it is the library's business: its references are the ones to see.
          text += ": references of \(DeclaringCode.libraryNames(of: modules))"
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
  let (text, cycles) = LeaksAtExit.report(timeout: .seconds(120))
  FileHandle.standardError.write(Data((text + "\n").utf8))
  // After the report, so that the cycles it matched count (the listing's own exit handler ran
  // before this one and left it here).
  KnownCycles.Usage.printUnusedIfAsked()
  guard let cycles else { return -1 }
  return Int32(clamping: cycles)
}
