import RetainGraph
import RetainGraphTestSupport
import Testing

@testable import RetainGraphCensus

/// Why a leak count made no report (`LeakCountError`): checked before any count, in a fixed order,
/// and each reason written whole (a text users read).
@Suite struct LeakCountErrorTests {
  @Test func theCountLooksOnlyWhenTheCensusRecordsAndTheScopesCanBeRead() {
    for censusAvailable in [false, true] {
      for censusStarted in [false, true] {
        for scopesAvailable in [nil, false, true] as [Bool?] {
          let expected: LeakCountError? =
            !censusAvailable
            ? .censusUnavailable
            : !censusStarted ? .censusNeverStarted : scopesAvailable == false ? .scopesUnavailable : nil
          #expect(
            LeakCountError.blindness(
              censusAvailable: censusAvailable, censusStarted: censusStarted, scopesAvailable: scopesAvailable
            )
              == expected,
            "census \(censusAvailable), started \(censusStarted), scopes \(String(describing: scopesAvailable))"
          )
        }
      }
    }
  }

  @Test func everyReasonIsWrittenWhole() {
    let reasons: [LeakCountError] = [
      .censusUnavailable, .censusNeverStarted, .scopesUnavailable,
      .countFailed(.timedOut(after: .seconds(60), tries: 2)),
    ]
    assertGolden(reasons.map(\.description).joined(separator: "\n") + "\n", named: "reasons")
  }

  /// In this process the census runs: a count looks, and says what it looked at.
  @Test func aCountWhereTheCensusRunsLooks() throws {
    #expect(HeapCensus.isAvailable)
    let report = try HeapCensus.run { try HeapCensus.leaks() }
    #expect(report.liveObjects > 0)
  }
}
