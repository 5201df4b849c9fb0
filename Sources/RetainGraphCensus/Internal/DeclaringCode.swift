internal import CRetainGraphCensus
internal import Foundation
internal import RetainGraph
internal import RetainGraphRuntime

/// Whose code declares a reference: the program's own (the package under test), or a library's
/// (XCTest's, a dependency's). A leaked cycle none of whose references the program declares is not
/// the program's to fix: XCTest's `<TestClass> ↓ testRun XCTestCaseRun ↓ test <TestClass>` is made
/// of XCTest's two properties, although the test class is the program's.
///
/// A stored property is declared by the class of the holder's hierarchy that has it among its own
/// fields (`testRun` by `XCTest`, not by the test class that inherits it); a closure's capture by the
/// closure (its context's metadata is emitted where the closure is written). That code is the
/// program's when it is in the image the census is linked into and its module is not a
/// dependency's (``dependencyModules``): on Linux, SwiftPM links every package into the test binary.
enum DeclaringCode {
  /// Who declares one reference.
  struct Declaration: Hashable {
    /// The module of the declaring type or closure, when its name says.
    var module: String?
    /// Whether the declaring code is the program's own.
    var isProgram: Bool
  }

  /// The declaration of `edge`, held by `holder` (a class instance, or a closure context or box the
  /// walk kept) whose node is named `holderName`.
  static func declaration(of edge: Edge, holder: AnyObject, holderName: String) -> Declaration {
    let address = UnsafeRawPointer(Unmanaged.passUnretained(holder).toOpaque())
    guard let metadata = CensusRuntime.metadata(ofObjectAt: address) else {
      return Declaration(module: nil, isProgram: true)
    }
    if CensusRuntime.isClass(metadata: metadata) {
      let holderType: any Any.Type = type(of: holder)
      let declaring = edge.property.flatMap { declaringClass(ofField: $0, in: holderType) } ?? holderType
      let module = moduleName(TypeNames.qualified(declaring))
      let inImage = Metadata.descriptor(of: declaring).map { rgc_in_census_image($0) != 0 } ?? true
      return Declaration(module: module, isProgram: inImage && !isDependency(module))
    }
    // A closure context or a box: its metadata is emitted with the code that allocates it; a
    // generic one (a collection's storage) is made at run time, in no image, by the library.
    let module = TypeNames.module(ofNodeNamed: holderName).map(String.init)
    return Declaration(module: module, isProgram: rgc_in_census_image(metadata) != 0 && !isDependency(module))
  }

  /// The class of `type`'s hierarchy that declares the stored property `name`; nil when none has it
  /// among its own fields (a custom child's label, say).
  static func declaringClass(ofField name: String, in type: any Any.Type) -> (any Any.Type)? {
    // Each class's fields are read once: a class's inherited ones are its superclass's, the next
    // candidate.
    var current: (any Any.Type)? = type
    var fields = FieldLayout.storedFields(of: type) ?? []
    while let candidate = current {
      let superclass = Metadata.superclass(of: candidate)
      let inherited = superclass.flatMap { FieldLayout.storedFields(of: $0) } ?? []
      if fields.dropFirst(inherited.count).contains(where: { $0.name == name }) { return candidate }
      current = superclass
      fields = inherited
    }
    return nil
  }

  /// `App` for `App.Store<Swift.Int>`; nil for a name without a module (a tuple).
  static func moduleName(_ qualified: String) -> String? {
    let module = qualified.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
    guard !module.isEmpty, qualified.dropFirst(module.count).hasPrefix(".") else { return nil }
    return String(module)
  }

  /// Whether `module` is a dependency's, not the package under test's.
  static func isDependency(_ module: String?) -> Bool {
    module.map { dependencyModules.contains($0) } ?? false
  }

  /// The modules of the package under test's dependencies, as the current directory tells (`swift
  /// test` runs in the package's root): the modules of every checkout in `.build/checkouts` and of
  /// every package the known libraries name, less the package's own (the folders of its `Sources`
  /// and `Tests`, and the targets its manifest names). Empty outside a package: then the image
  /// alone tells.
  static let dependencyModules: Set<String> = modules(
    dependenciesOfPackageAt: FileManager.default.currentDirectoryPath)

  /// ``dependencyModules`` for the package whose root is `root`.
  static func modules(dependenciesOfPackageAt root: String) -> Set<String> {
    let files = FileManager.default
    guard files.fileExists(atPath: root + "/Package.swift") else { return [] }
    let manifest = (try? String(contentsOfFile: root + "/Package.swift", encoding: .utf8)) ?? ""
    let own = targetModules(in: root + "/Sources").union(targetModules(in: root + "/Tests"))
      .union(declaredTargets(in: manifest))
    var dependencies = KnownLibraries.modules
    let checkouts = root + "/.build/checkouts"
    for checkout in (try? files.contentsOfDirectory(atPath: checkouts)) ?? [] {
      dependencies.formUnion(targetModules(in: checkouts + "/" + checkout + "/Sources"))
    }
    return dependencies.subtracting(own)
  }

  /// The module names of the targets a manifest declares (`.target(name: "Swinject", path:
  /// "Sources")`): a target whose sources are not in a folder of its name.
  static func declaredTargets(in manifest: String) -> Set<String> {
    var names: Set<String> = []
    for kind in ["target", "testTarget", "executableTarget", "macro"] {
      var rest = manifest[...]
      while let call = rest.range(of: ".\(kind)(") {
        rest = rest[call.upperBound...]
        let arguments = rest.drop { $0.isWhitespace }
        guard arguments.hasPrefix("name:") else { continue }
        let value = arguments.dropFirst("name:".count).drop { $0.isWhitespace }
        guard value.hasPrefix("\""), let end = value.dropFirst().firstIndex(of: "\"") else { continue }
        names.insert(identifier(String(value[value.index(after: value.startIndex)..<end])))
      }
    }
    return names
  }

  /// A target's module name: its name with every character that cannot be in an identifier
  /// replaced by `_`.
  private static func identifier(_ name: String) -> String {
    String(name.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
  }

  /// The module names of the target folders in `folder` (a target's module name is its name with
  /// every character that cannot be in an identifier replaced by `_`).
  private static func targetModules(in folder: String) -> Set<String> {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return Set(names.filter { !$0.hasPrefix(".") }.map(identifier))
  }

  /// The libraries `modules` belong to, as a person names them: `XCTest`, `SwiftNIO (NIOCore,
  /// NIOEmbedded)`.
  static func libraryNames(of modules: [String]) -> String {
    var byLibrary: [(name: String, modules: [String])] = []
    for module in modules.sorted() {
      let name = KnownLibraries.library(ofModule: module)?.name ?? module
      if let index = byLibrary.firstIndex(where: { $0.name == name }) {
        byLibrary[index].modules.append(module)
      } else {
        byLibrary.append((name, [module]))
      }
    }
    return byLibrary.map { library in
      library.modules == [library.name]
        ? library.name : "\(library.name) (\(library.modules.joined(separator: ", ")))"
    }.joined(separator: ", ")
  }
}
