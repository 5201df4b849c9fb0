internal import RetainGraphStorage
internal import RetainGraphSupport

/// One fix of a cycle as a warning at the declaration to change: what ``ObjectGraph/diagnostics()``
/// prints as a line and ``ObjectGraph/sarifData()`` as a result.
struct Diagnostic: Hashable {
  /// The declaration to change, when the break has a location.
  var location: CodeLocation?
  /// The idiom of the break: the SARIF rule.
  var idiom: Cycle.Break.Idiom
  /// The fix, then a short trace of the loop it breaks, on one line: `make Interactor.output weak
  /// (retain cycle: Presenter → Interactor → Presenter)`.
  var message: String
  /// The cycle's signature: what identifies the result from run to run.
  var signature: CycleSignature
  /// The fix as a value (its sentence without the count of references, which may change from
  /// run to run): what tells two results of one cycle apart.
  var advice: FixAdvice
}

extension ObjectGraph {
  /// The most objects the trace of a diagnostic names; a longer loop keeps its first and last
  /// names and counts the others.
  static let maxTraceNames = 8

  /// One diagnostic per fix of each cycle of `indices` (in their order): a library's own loop has
  /// no fix, so none. Alike cycles (the same fixes, as the report groups them) give their fixes
  /// once, saying for how many cycles.
  /// - Parameter indices: indices of ``cycles``.
  /// - Returns: the diagnostics, cycle by cycle, each cycle's fixes in its plan's order.
  func diagnosticList(ofCycles indices: [Int]) -> [Diagnostic] {
    let chosen = indices.filter { cycles.indices.contains($0) }.map { cycles[$0] }
    var diagnostics: [Diagnostic] = []
    for group in ReportWriter.alikeGroups(chosen) {
      let cycle = chosen[group[0]]
      let signature = cycle.signature
      let alike = group.count > 1 ? "; one edit for all \(group.count) cycles" : ""
      for fix in cycle.fixPlan {
        diagnostics.append(
          Diagnostic(
            location: fix.location, idiom: fix.idiom,
            message: DiagnosticText.line("\(fix.fix) (retain cycle: \(traceNames(of: fix))\(alike))"),
            signature: signature, advice: fix.advice))
      }
    }
    return diagnostics
  }

  /// The objects around the loop `fix` breaks, as the report's trace names them and in its order
  /// (from the loop's object nearest the root, back to it): `Presenter → Interactor → Presenter`.
  /// A loop longer than ``maxTraceNames`` keeps its first and last names: `A → B → C → D → (+996
  /// more) → X → Y → Z → A`.
  func traceNames(of fix: Cycle.Break) -> String {
    let loop = fix.loopEdges.indices
    guard !loop.isEmpty else { return "" }
    let distance = storage.distance(from: root)
    func from(_ position: Int) -> Int { Int(storage.edges[Int(loop[position])].from) }
    let entry = loop.indices.min { (distance[from($0)], $0) < (distance[from($1)], $1) } ?? 0
    // Names 0…count-1 around the loop; the last is the first again.
    let count = loop.count + 1
    func name(_ index: Int) -> String { displayName(from((entry + index) % loop.count)) }
    let limit = Self.maxTraceNames
    guard count > limit else { return (0..<count).map(name).joined(separator: " → ") }
    let head = (0..<limit / 2).map(name)
    let tail = (count - limit / 2..<count).map(name)
    return (head + ["(+\(count - limit) more)"] + tail).joined(separator: " → ")
  }
}

/// Text made fit for one line of a diagnostic.
enum DiagnosticText {
  /// `text` on one line: line breaks and the other control characters become their pictures
  /// (U+2400…, as the DOT and Mermaid texts draw them), so a type name cannot start a line of its own.
  static func line(_ text: String) -> String {
    var result = ""
    result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
    for scalar in text.unicodeScalars {
      if scalar.value < 0x20 || scalar.value == 0x7F {
        let picture = Unicode.Scalar(0x2400 + (scalar.value == 0x7F ? 0x21 : scalar.value))
        result.unicodeScalars.append(picture ?? "?")
      } else if scalar == "\u{2028}" || scalar == "\u{2029}" || scalar == "\u{85}" {
        // Line and paragraph separators, and NEL: line breaks to some editors.
        result.unicodeScalars.append(" ")
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// The compiler's form of a warning: `FILE:LINE:COLUMN: warning: MESSAGE`, `FILE:LINE: warning:`
  /// without a column, `<unknown>:0: warning:` (as swiftc writes it) without a location.
  static func warning(_ diagnostic: Diagnostic) -> String {
    guard let location = diagnostic.location else { return "<unknown>:0: warning: \(diagnostic.message)" }
    let column = location.column.map { ":\($0)" } ?? ""
    return "\(line(location.file)):\(location.line)\(column): warning: \(diagnostic.message)"
  }
}
