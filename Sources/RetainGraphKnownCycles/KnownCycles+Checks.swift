internal import Foundation
package import RetainGraph

extension KnownCycles {
  /// What a check's cycles get from the known-cycles file at `file`: the verdict on them, or why
  /// the file cannot be used. Every check reads the file through this (`assertNoCycles`,
  /// `checkNoCycles`, the leaked-cycle checks, `RETAIN_GRAPH_LEAKS=1` at exit), so that ``Usage``
  /// records for the process which entries matched. The file is read only when there are cycles.
  /// - Parameters:
  ///   - cycles: each cycle's number (from 0, as its report numbers it less one) and signature.
  ///   - file: the file's path.
  ///   - today: the day (`YYYY-MM-DD`, UTC) expiry dates are compared with; nil: today.
  /// - Returns: the verdict, whose ``Verdict/gone`` is empty (the file lists the cycles of every
  ///   check: one that this check did not find is not gone), or the file's error.
  package static func verdict(
    on cycles: [(index: Int, signature: CycleSignature)], file: String, today: String? = nil
  ) -> Result<Verdict, KnownCyclesFileError> {
    Usage.consulted(file)
    guard !cycles.isEmpty else { return .success(Verdict(path: file)) }
    let known: KnownCycles
    do {
      known = try read(at: file)
    } catch {
      return .failure(error)
    }
    var verdict = known.verdict(on: cycles, today: today ?? day(of: Date()))
    verdict.gone = []
    Usage.matched((verdict.known + verdict.expired).map(\.signature.description), in: file)
    return .success(verdict)
  }

  /// The known-cycles file of the package the current directory is in (`swift test` runs in the
  /// package's root): ``packageFile(above:)`` from the current directory; nil when there is none.
  package static var workingDirectoryFile: String? {
    let directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    return packageFile(above: directory.appendingPathComponent(fileName).path)
  }
}

extension KnownCyclesFileError {
  /// What a check says first when its known-cycles file cannot be used (the report follows).
  package var checkFailureLine: String { "the known-cycles file cannot be used: \(self)" }
}
