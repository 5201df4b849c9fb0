public import Foundation

extension ObjectGraph {
  /// Each fix of each retain cycle as a compiler warning at the declaration to change, the lines an
  /// editor or a CI log turns into annotations:
  ///
  /// ```
  /// Samples/ViperModule.swift:16:10: warning: make Interactor.output weak (retain cycle: Presenter → Interactor → Presenter)
  /// ```
  ///
  /// One line per break of each cycle's ``Cycle/fixPlan``: `FILE:LINE:COLUMN: warning: FIX (retain
  /// cycle: TRACE)`, `FILE:LINE: warning:` when the column is not known, and swiftc's
  /// `<unknown>:0: warning:` when the break has no ``Cycle/Break/location``. FIX is the break's
  /// ``Cycle/Break/fix``; TRACE names the objects around the loop it breaks, as the report's trace
  /// does, from the one nearest the root (a loop of more than 8 objects keeps its first and last
  /// names and counts the others). A library's own loop (``Cycle/isLibraryOnly``) has no fix and
  /// no line; alike cycles (the report's "one edit for all N cycles") share one line per fix. Line
  /// breaks and control characters in names are written as their pictures (`␊`), so each warning
  /// stays one line. Notes on what the walk did not read are in ``report()``, not here.
  /// - Returns: the lines, each ending with a line break; `""` when there is nothing to fix.
  public func diagnostics() -> String {
    diagnostics(ofCycles: Array(cycles.indices))
  }

  /// ``diagnostics()`` of the cycles `indices` only (the command line's `check --known` leaves
  /// out the known cycles).
  /// - Parameter indices: indices of ``cycles``; others are ignored.
  /// - Returns: the lines, each ending with a line break.
  package func diagnostics(ofCycles indices: [Int]) -> String {
    diagnosticList(ofCycles: indices).map { DiagnosticText.warning($0) + "\n" }.joined()
  }

  /// The fixes of ``diagnostics()`` as a SARIF 2.1.0 log, the format code-scanning services (GitHub
  /// code scanning, GitLab, Azure DevOps) and editors' SARIF viewers read.
  ///
  /// One run of the tool `retain-graph`, with one rule per ``Cycle/Break/Idiom``
  /// (`retain-cycle/closureCapture`, `retain-cycle/backReference`…) and one result per fix: level
  /// `warning`, its message the diagnostic's text, its location the break's
  /// ``Cycle/Break/location`` when known (a relative path under `%SRCROOT%`, the package root; an
  /// absolute one as a `file:` URI; no `locations` otherwise), and `partialFingerprints` made of the
  /// cycle's ``Cycle/signature`` and the fix, so a code-scanning service matches a result with the
  /// same one of an earlier run. Keys are sorted and the output is the same for the same graph.
  /// - Returns: the log's JSON (UTF-8), ending with a line break.
  public func sarifData() -> Data {
    sarifData(ofCycles: Array(cycles.indices))
  }

  /// ``sarifData()`` of the cycles `indices` only.
  /// - Parameter indices: indices of ``cycles``; others are ignored.
  /// - Returns: the log's JSON (UTF-8).
  package func sarifData(ofCycles indices: [Int]) -> Data {
    Data(SARIFWriter(diagnostics: diagnosticList(ofCycles: indices)).data())
  }
}
