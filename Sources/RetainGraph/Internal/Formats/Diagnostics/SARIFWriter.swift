internal import RetainGraphFormats

/// Writes ``ObjectGraph/sarifData()``: a ``SARIFLog`` of one rule per ``Cycle/Break/Idiom`` and one
/// result per diagnostic, matched across runs by the fix and the cycle's signature.
struct SARIFWriter {
  let diagnostics: [Diagnostic]

  /// The rule id of an idiom: `retain-cycle/closureCapture`.
  static func ruleID(_ idiom: Cycle.Break.Idiom) -> String { "retain-cycle/\(idiom.rawValue)" }

  /// What each rule finds, one sentence (the idiom's, as ``Cycle/Break/Idiom`` documents it).
  static func ruleDescription(_ idiom: Cycle.Break.Idiom) -> String {
    switch idiom {
    case .closureCapture:
      "A closure captures an object of its retain cycle strongly: capture it weakly ([weak self])."
    case .methodReference:
      "A stored method reference retains its object in a retain cycle: store a closure capturing [weak self]."
    case .backReference:
      "A back reference (delegate, parent, owner, output, observer) closes a retain cycle: make it weak."
    case .structure:
      "A reference of a retain cycle with no idiom of its own: weaken it, or end it when done."
    case .libraryReference:
      "A library's object holds yours in a retain cycle: give it a [weak self] closure or end what holds it."
    }
  }

  func data() -> [UInt8] {
    let idioms = Cycle.Break.Idiom.allCases
    let rules = idioms.map { SARIFLog.Rule(id: Self.ruleID($0), description: Self.ruleDescription($0)) }
    let results = diagnostics.map { diagnostic in
      SARIFLog.Result(
        location: diagnostic.location.map {
          SARIFLog.Location(file: $0.file, line: $0.line, column: $0.column)
        },
        ruleIndex: idioms.firstIndex(of: diagnostic.idiom) ?? 0, message: diagnostic.message,
        fingerprints: [
          "retainCycleFix/v1": diagnostic.advice.description,
          "retainCycleSignature/v1": diagnostic.signature.description,
        ])
    }
    return SARIFLog(rules: rules, results: results, toolVersion: retainGraphVersion).data()
  }
}
