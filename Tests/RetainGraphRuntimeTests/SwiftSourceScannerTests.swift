import RetainGraphRuntime
import Testing

/// The stored-property finder on source text written in the test: the declaration directly in the
/// type's body, whatever surrounds it (comments, strings, computed properties, nested and extended
/// types), and no answer when it cannot tell.
struct SwiftSourceScannerTests {
  static func find(_ name: String, in path: [String], _ source: String) -> SwiftSourceScanner.Position? {
    SwiftSourceScanner.storedProperty(named: name, inType: path, source: Array(source.utf8))
  }

  static let screen = """
    import Foundation
    import class Foundation.NSObject

    // var output: Decoy? (a comment)
    /* var output: Decoy? /* nested */ var output */
    final class Screen: NSObject, Delegate where Self: AnyObject {
      let banner = "var output: \\(String("}")) {"
      let raw = #"var output "# + \"\"\"
        var output: Decoy?
        } {
        \"\"\"
      var count: Int {
        var output = 1
        return output
      }
      func update() { let output = 2; _ = output }
      class func make() -> Screen { Screen() }
      private(set) weak var output: Presenter?
      @Published var title = ""
      lazy var loader: () -> Void = { [unowned self] in self.count += 1 }
      struct Inner {
        var output: Int
      }
    }

    extension Screen.Inner {
      final class Deeper {
        var `default`: Screen?
      }
    }
    """

  @Test func thePropertyIsFoundInItsTypesBody() {
    #expect(Self.find("output", in: ["Screen"], Self.screen) == .init(line: 18, column: 21))
    #expect(Self.find("title", in: ["Screen"], Self.screen) == .init(line: 19, column: 14))
    #expect(Self.find("count", in: ["Screen"], Self.screen) == .init(line: 12, column: 3))
    #expect(Self.find("banner", in: ["Screen"], Self.screen) == .init(line: 7, column: 3))
  }

  @Test func nestedAndExtendedTypesAreTheirOwn() {
    #expect(Self.find("output", in: ["Screen", "Inner"], Self.screen) == .init(line: 22, column: 5))
    #expect(
      Self.find("default", in: ["Screen", "Inner", "Deeper"], Self.screen) == .init(line: 28, column: 5))
    #expect(Self.find("output", in: ["Inner"], Self.screen) == nil)
  }

  /// A property wrapper's storage (`_title`) and a lazy property's are found at the property.
  @Test func storageNamesAreTheirPropertys() {
    #expect(Self.find("_title", in: ["Screen"], Self.screen) == .init(line: 19, column: 14))
    #expect(Self.find("$__lazy_storage_$_loader", in: ["Screen"], Self.screen) == .init(line: 20, column: 8))
  }

  /// Locals, computed properties' bodies, comments and strings declare no stored property; two
  /// declarations of one name (in `#if` branches) give no answer.
  @Test func nothingIsGuessed() {
    #expect(Self.find("missing", in: ["Screen"], Self.screen) == nil)
    #expect(Self.find("output", in: ["Decoy"], Self.screen) == nil)
    let branches = """
      class Twice {
      #if os(Linux)
        var value: Int = 1
      #else
        var value: Int = 2
      #endif
      }
      """
    #expect(Self.find("value", in: ["Twice"], branches) == nil)
    let local = """
      func make() {
        class Local { var value = 1 }
      }
      class Local { let value = 2 }
      """
    #expect(Self.find("value", in: ["Local"], local) == .init(line: 4, column: 15))
  }

  @Test func typePathsOfQualifiedNames() {
    #expect(SourceDeclarations.typePath(ofQualifiedName: "App.Screen") == ["Screen"])
    #expect(
      SourceDeclarations.typePath(ofQualifiedName: "App.Outer.Inner<Swift.Int, App.X>") == ["Outer", "Inner"])
    #expect(SourceDeclarations.typePath(ofQualifiedName: "App.(Hidden in _0ABC)") == ["Hidden"])
    #expect(SourceDeclarations.typePath(ofQualifiedName: "App.(unknown context at $1234).Local") == nil)
    #expect(SourceDeclarations.typePath(ofQualifiedName: "Screen") == nil)
  }

  /// What a closure's lookup by address starts from: the module whose closure symbols are named,
  /// their mangled prefix, and the linkage names a forwarder is declared by.
  @Test func closureNamesGiveTheirModulesSymbols() {
    #expect(SourceDeclarations.moduleName(ofFunctionNamed: "closure #1 in App.Screen.init()") == "App")
    #expect(
      SourceDeclarations.moduleName(ofFunctionNamed: "implicit closure #2 in closure #1 in Probe.Cache.arm()")
        == "Probe")
    #expect(
      SourceDeclarations.moduleName(ofFunctionNamed: "closure #1 in (extension in App):Foundation.Data.f()")
        == "Foundation")
    #expect(SourceDeclarations.moduleName(ofFunctionNamed: "App.(Hidden in _0ABC)") == "App")
    #expect(
      SourceDeclarations.moduleName(
        ofFunctionNamed: "closure #2 in static RetainGraphTests.SinkViewModel.make()")
        == "RetainGraphTests")
    #expect(
      SourceDeclarations.moduleName(
        ofFunctionNamed: "closure #1 in variable initialization expression of App.X.y")
        == "App")
    #expect(
      SourceDeclarations.moduleName(ofFunctionNamed: "closure #1 in default argument 0 of App.f(x:)") == "App"
    )
    #expect(SourceDeclarations.mangledPrefix(ofModule: "App") == "$s3App")
    #expect(SourceDeclarations.mangledPrefix(ofModule: "RetainGraphTests") == "$s16RetainGraphTests")
    #expect(SourceDeclarations.mangledPrefix(ofModule: "Swift") == nil)
    #expect(SourceDeclarations.mangledPrefix(ofModule: "") == nil)
    #expect(
      SourceDeclarations.linkageNames(of: "$s3App1fyyFyycfU_TA") == [
        "$s3App1fyyFyycfU_TA", "$s3App1fyyFyycfU_",
      ])
    #expect(SourceDeclarations.linkageNames(of: "$s3App1fyyFyycfU_") == ["$s3App1fyyFyycfU_"])
  }
}
