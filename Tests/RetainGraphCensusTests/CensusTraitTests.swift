import Foundation
import RetainGraph
import RetainGraphCensus
import Synchronization
import Testing

@testable import RetainGraphTesting

extension CensusTests {
  /// The census's traits live in RetainGraphTesting, which links no census: they reach it through
  /// the registration the census makes when the test program loads.
  @Suite struct CensusTraits {
    /// Linked (this test program links RetainGraphCensus), the census registered itself, and the
    /// trait runs the test with it started, for the census checks to see.
    @Test(.heapCensus) func theTraitRunsTheTestUnderTheLinkedCensus() {
      #expect(CensusRegistration.registered != nil)
      #expect(HeapCensus.isRunning)
      #expect(CensusRegistration.running != nil)
    }

    /// The census product brings no test library into a program that links it: no Swift file of
    /// RetainGraphCensus imports Testing or XCTest (its traits are RetainGraphTesting's).
    @Test func theCensusImportsNoTestLibrary() throws {
      let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
      let sources = root.appendingPathComponent("Sources/RetainGraphCensus")
      let listing = try #require(FileManager.default.enumerator(atPath: sources.path))
      let files = listing.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
      #expect(files.contains("HeapCensus.swift"), "\(sources.path): \(files)")
      for file in files {
        let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
        // Import declarations (with an access level or attribute before them), not comments.
        let imports = text.split(separator: "\n").filter { line in
          let words = line.split(separator: " ")
          guard words.first?.hasPrefix("//") == false else { return false }
          guard let index = words.firstIndex(of: "import"), index + 1 < words.count else { return false }
          return ["Testing", "XCTest"].contains(String(words[index + 1]))
        }
        #expect(imports.isEmpty, "\(file) imports a test library: \(imports)")
      }
    }

    /// Without a census linked, each trait fails the test with how to link it, and still runs it.
    @Test func withoutTheCensusEachTraitFailsSayingHowToLinkIt() async throws {
      let test = try #require(Test.current)
      let runs = Mutex(0)
      let recorded = Mutex<[String]>([])
      try await withKnownIssue {
        try await HeapCensusTrait().provideScope(census: nil, for: test) { runs.withLock { $0 += 1 } }
        try await LeakedCyclesTrait().provideScope(census: nil, for: test) { runs.withLock { $0 += 1 } }
      } matching: { issue in
        recorded.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
        return true
      }
      #expect(runs.withLock { $0 } == 2)
      let link =
        "runs the test under the heap census, which this test program does not link: add the product "
        + "RetainGraphCensus to the test target's dependencies and `import RetainGraphCensus` in one of its files."
      #expect(
        recorded.withLock { $0 } == ["The .heapCensus trait " + link, "The .noLeakedCycles trait " + link])
    }
  }
}
