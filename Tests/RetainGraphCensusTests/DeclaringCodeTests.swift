import Foundation
import RetainGraph
import Testing
import XCTest

@testable import RetainGraphCensus

/// An XCTest case run outside XCTest's runner: running it leaves XCTest's own cycle (the case's
/// `testRun` and the run's `test`, both XCTest's properties).
final class DeclaringCodeSampleCase: XCTestCase, @unchecked Sendable {
  /// A reference of this package's code, for the cycle that is the program's.
  var helper: DeclaringCodeHelper?

  /// Not `test…`: XCTest's own pass does not run it.
  func nothing() {}
}

final class DeclaringCodeHelper {
  var owner: DeclaringCodeSampleCase?
}

extension CensusTests {
  /// Whose code declares a leaked cycle's references: XCTest's own cycle around a test case of
  /// this package is XCTest's, not counted at exit; a loop through a property of the package's own
  /// is counted.
  @Suite struct DeclaringCode {
    /// Runs a sample case (leaving XCTest's cycle) and, when `helped`, closes a loop of this
    /// package's own through it; the weak probe of the case, and the report of what it left.
    private func leave(helped: Bool) throws -> (probe: DeclaringCodeSampleCase?, report: LeakReport) {
      let mark = HeapCensus.mark()
      weak var probe: DeclaringCodeSampleCase?
      HeapCensus.run {
        let testCase = DeclaringCodeSampleCase(name: "nothing") { _ in }
        testCase.run()
        if helped {
          let helper = DeclaringCodeHelper()
          helper.owner = testCase
          testCase.helper = helper
        }
        probe = testCase
      }
      var report = try HeapCensus.leaks(since: mark, scopes: nil, attributing: true, timeout: .seconds(60))
      report.leaks = report.leaks.filter { $0.cycleTypes.contains("DeclaringCodeSampleCase") }
      return (probe, report)
    }

    @Test func xctestsOwnCycleIsNotCounted() throws {
      let (probe, report) = try leave(helped: false)
      #expect(probe != nil, "the runtime keeps the case: XCTest's run and the case hold each other")
      #expect(probe?.testRun != nil)
      defer { probe?.helper = nil }
      let shape = try #require(report.leaks.first)
      #expect(report.leaks.count == 1)
      #expect(shape.libraryModules == ["XCTest"])
      #expect(shape.isOfLibraryTypesOnly == false, "the test case's class is this package's")
      let (text, cycles) = RetainGraphCensus.LeaksAtExit.report(of: report, knownFile: nil)
      #expect(cycles == 0, "\(text)")
      #expect(
        text.contains("not counted, 1 leaked cycle whose every reference a library declares"), "\(text)")
      #expect(text.contains(": references of the test libraries (XCTest)"), "\(text)")
    }

    @Test func aLoopThroughAPropertyOfThePackageIsCounted() throws {
      let (probe, report) = try leave(helped: true)
      #expect(probe?.helper?.owner === probe, "the runtime keeps the case and its helper")
      defer { probe?.helper = nil }
      let shape = try #require(report.leaks.first)
      #expect(shape.libraryModules == nil, "helper and owner are this package's properties")
      let (text, cycles) = RetainGraphCensus.LeaksAtExit.report(of: report, knownFile: nil)
      #expect(cycles == 1, "\(text)")
    }

    /// The dependencies are the checkouts' modules and the known libraries', less the package's own.
    @Test func dependenciesAreToldFromThePackageByWhereTheirSourcesAre() throws {
      let root = FileManager.default.temporaryDirectory.appendingPathComponent("declaring-\(UUID())").path
      defer { try? FileManager.default.removeItem(atPath: root) }
      #expect(RetainGraphCensus.DeclaringCode.modules(dependenciesOfPackageAt: root).isEmpty)
      for folder in [
        "Sources/MyLib", "Sources/Vapor", "Tests/MyLibTests", ".build/checkouts/swift-nio/Sources/NIOCore",
        ".build/checkouts/helpers/Sources/my-helpers",
      ] {
        try FileManager.default.createDirectory(
          atPath: root + "/" + folder, withIntermediateDirectories: true)
      }
      #expect(
        RetainGraphCensus.DeclaringCode.modules(dependenciesOfPackageAt: root).isEmpty, "no Package.swift")
      try Data(
        #"let package = Package(name: "Sw", targets: [.target(name: "Swinject", path: "Sources"), .testTarget( name: "Sw-Tests")])"#
          .utf8
      ).write(to: URL(fileURLWithPath: root + "/Package.swift"))
      let dependencies = RetainGraphCensus.DeclaringCode.modules(dependenciesOfPackageAt: root)
      #expect(dependencies.contains("NIOCore"))
      #expect(dependencies.contains("my_helpers"))
      #expect(dependencies.contains("XCTest"), "a known library's module")
      #expect(!dependencies.contains("MyLib") && !dependencies.contains("MyLibTests"))
      #expect(!dependencies.contains("Vapor"), "the package under test is Vapor itself")
      #expect(!dependencies.contains("Swinject"), "a target the manifest names, whose sources are in Sources")
    }

    @Test func librariesAreNamedWithTheirModules() {
      let names = RetainGraphCensus.DeclaringCode.libraryNames
      #expect(names(["XCTest"]) == "the test libraries (XCTest)")
      #expect(names(["NIOEmbedded", "NIOCore"]) == "SwiftNIO (NIOCore, NIOEmbedded)")
      #expect(names(["Custom"]) == "Custom")
    }
  }
}
