internal import RetainGraph
internal import RetainGraphKnownCycles

/// The check `.noLeakedCycles` and `assertNoLeakedCycles` make after the code they ran.
enum LeakedCyclesCheck {
  /// What to say of the leaked cycles `scope` left, or of why none could be looked for; nil when
  /// it left none.
  /// - Parameters:
  ///   - scope: the scope, after its work.
  ///   - subject: who left them ("The test").
  ///   - place: where their objects were allocated ("the test").
  ///   - timeout: how long the count may take.
  ///   - knownFile: the known-cycles file, if any: a cycle it lists passes until its entry expires.
  /// - Returns: the failure's text, or nil.
  static func problem(
    in scope: LeakScope, subject: String, place: String, timeout: Duration, knownFile: String?
  ) -> String? {
    let report: LeakReport
    do {
      report = try HeapCensus.leaks(in: scope, timeout: timeout)
    } catch {
      return "No leaked cycles were looked for: \(error)."
    }
    let one = report.cycleCount == 1
    var cycles = one ? "1 leaked cycle" : "\(LeakReport.number(report.cycleCount)) leaked cycles"
    if report.isGrouped {
      cycles += report.leaks.count == 1 ? " of 1 shape" : " of \(report.leaks.count) shapes"
    }
    let text =
      "\(subject) left \(cycles) behind: nothing outside holds \(one ? "it" : "them"), and "
      + "\(one ? "it holds" : "each holds") an object allocated in \(place).\n\n\(report.cycleSections)"
    guard let knownFile else { return report.isEmpty ? nil : text }
    switch KnownCycles.verdict(on: report.signatures, file: knownFile) {
    case .failure(let error): return error.checkFailureLine + "\n\n" + text
    case .success(let verdict):
      guard verdict.fails else { return nil }
      return ([text, ""] + verdict.lines(noun: "leaked cycle")).joined(separator: "\n")
    }
  }
}

extension LeakReport {
  /// Each cycle's number (from 0, as the report numbers it less one) and signature, for a
  /// known-cycles file's verdict.
  var signatures: [(index: Int, signature: CycleSignature)] {
    leaks.enumerated().map { (index: $0.offset, signature: $0.element.signature) }
  }
}
