#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// Limits and filters for ``ObjectGraph/init(reflecting:options:)``.
public struct GraphOptions: Sendable {
  /// The most nodes the walk records; past it the walk stops and the graph is marked truncated.
  ///
  /// At least 1: the root is always recorded, so a value below 1 (`0`, `-1`) is taken as 1, both here
  /// and in the initialiser. A graph walked with it has its root alone and is marked truncated when
  /// the root holds anything.
  public var maxNodes: Int {
    get { nodeLimit }
    set { nodeLimit = max(1, newValue) }
  }
  private var nodeLimit: Int
  /// How many references away from the root the walk goes (nil: no limit). Objects at this depth are
  /// recorded but their references are not followed.
  public var maxDepth: Int?
  /// Types whose instances (and values) are left out, with every reference to them.
  public var ignoredTypes: [any Any.Type] {
    get { ignoredTypeIDs.map { $0.type } }
    set { ignoredTypeIDs = newValue.map(TypeID.init) }
  }
  /// Types to leave out by name, for the types you cannot write in code: a library's generic or
  /// private types (`AsyncStream<Element>._Storage`). Each is a pattern matched against a type's
  /// whole qualified name as the walk shows it (`Swift.AsyncStream<App.Message>._Storage`), or
  /// against that name without its module (`AsyncStream<App.Message>._Storage`): `*` matches any
  /// run of characters, nothing else is special. So `AsyncStream<*>._Storage` leaves out every
  /// `AsyncStream`'s storage, `Swift.AsyncStream<*>` only the module's own, and `*._Context` every
  /// type named `_Context`. A private or fileprivate type matches by its name without the file's
  /// discriminator (`App.Session.State`, or `Session.State`). Subclasses of a matched class are left
  /// out too, as with ``ignoredTypes``.
  public var ignoredTypeNames: [String] {
    get { ignoredNamePatterns.map(\.text) }
    set { ignoredNamePatterns = newValue.map(TypeNamePattern.init) }
  }
  var ignoredNamePatterns: [TypeNamePattern] = []
  /// Whether any type is left out (by type or by name).
  var ignoresTypes: Bool { !ignoredTypeIDs.isEmpty || !ignoredNamePatterns.isEmpty }
  /// References to leave out, by the type and the stored property they are made through
  /// (`.property("output", of: "Interactor")`). Use it to accept a known cycle.
  public var ignoredReferences: [ReferencePattern]
  /// Whether stored closures are followed to what they capture.
  public var includeClosures: Bool

  /// Modules whose code is not yours (the toolchain's and well-known packages': see
  /// ``knownLibraryModules``; yours are ``libraries``). When a graph has objects of other modules too, a fix plan never asks
  /// you to weaken a reference one library object holds to another: it frees your objects with
  /// references that touch them, and a loop among library objects alone is left to the library
  /// (``Cycle/libraryLoopMembers``). Add the modules of your own dependencies here; a graph whose
  /// objects are all of these modules is planned as if the set were empty.
  public var libraryModules: Set<String>
  /// Libraries of your own to add to the known ones for this graph, as data (a test target's
  /// dependencies): their modules are library modules beside ``libraryModules``, and their ways out
  /// are what the fix says for a reference one of them holds to your object.
  public var libraries: [LibraryRule] = []
  /// The known-cycles file the assertions read (`assertNoCycles`, `checkNoCycles`): the cycles it
  /// lists by signature (``Cycle/signature``) pass until their entry expires. A relative path is
  /// taken from the current directory. Nil (the default): they read `.retain-graph-known.json` at
  /// the root of the package their caller's file is in (the nearest directory above it that holds
  /// `Package.swift`) when there is one. The walk itself does not read it; the heap census's
  /// leaked-cycle checks take their own (`knownCyclesFile:`).
  public var knownCyclesFile: String? = nil
  /// The modules the fix plans treat as libraries: ``libraryModules`` and those of ``libraries``.
  var planLibraryModules: Set<String> {
    libraries.isEmpty ? libraryModules : libraryModules.union(libraries.flatMap(\.modules))
  }

  /// Whether the walk reads class references, optional class references and arrays of class
  /// references straight from memory (the default). Turn it off to send every value through the
  /// general path (`Mirror` and generic loads); the answers are the same, only slower.
  package var fastPaths: Bool = true

  var ignoredTypeIDs: [TypeID]

  /// Creates options; every parameter has a default.
  /// - Parameters:
  ///   - maxNodes: the most nodes to record (default 100,000); values below 1 are taken as 1, since
  ///     the root is always recorded.
  ///   - maxDepth: how many references away from the root to go (default: no limit).
  ///   - ignoredTypes: types to leave out.
  ///   - ignoredTypeNames: types to leave out by name pattern (see ``ignoredTypeNames``).
  ///   - ignoredReferences: references to leave out, by type and property (see
  ///     ``ignoredReferences``).
  ///   - includeClosures: whether to follow closures to their captures.
  ///   - libraryModules: modules whose code is not yours (default ``defaultLibraryModules``: the
  ///     known ones and those `RETAIN_GRAPH_LIBRARY_MODULES` names).
  ///   - libraries: libraries of your own, as data, added to the known ones (see ``libraries``).
  public init(
    maxNodes: Int = 100_000,
    maxDepth: Int? = nil,
    ignoredTypes: [any Any.Type] = [],
    ignoredTypeNames: [String] = [],
    ignoredReferences: [ReferencePattern] = [],
    includeClosures: Bool = true,
    libraryModules: Set<String> = GraphOptions.defaultLibraryModules,
    libraries: [LibraryRule] = []
  ) {
    self.nodeLimit = max(1, maxNodes)
    self.maxDepth = maxDepth
    self.ignoredTypeIDs = ignoredTypes.map(TypeID.init)
    self.ignoredNamePatterns = ignoredTypeNames.map(TypeNamePattern.init)
    self.ignoredReferences = ignoredReferences
    self.includeClosures = includeClosures
    self.libraryModules = libraryModules
    self.libraries = libraries
  }

  /// The modules of the libraries known by name: the toolchain's (the standard library,
  /// Foundation, Dispatch, concurrency, Synchronization, Observation, the test libraries, Apple's UI
  /// frameworks and Combine) and the packages Swift users depend on: OpenCombine, RxSwift,
  /// ReactiveSwift, SwiftNIO and its kits, Swinject, swift-async-algorithms, swift-collections, GRDB,
  /// Vapor and its kits (Fluent, Leaf, SQLKit, the Postgres, SQLite and MySQL drivers…),
  /// AsyncHTTPClient, Hummingbird, FlyingFox and FlyingSocks, the MCP Swift SDK (`MCP`), Point-Free's
  /// libraries (Dependencies, ComposableArchitecture, CasePaths, IdentifiedCollections, Perception,
  /// Sharing, CustomDump, IssueReporting, ConcurrencyExtras, Clocks…), swift-log (`Logging`),
  /// swift-service-lifecycle and gRPC Swift (`GRPC`, `GRPCCore` and its transports).
  ///
  /// Where a library has a way out of a reference it holds to your object (GRDB's
  /// `remove(transactionObserver:)` or extent `.observerLifetime`, a Combine `AnyCancellable`'s
  /// cancel), the fix says it.
  public static let knownLibraryModules: Set<String> = KnownLibraries.modules
  /// The libraries known by name, as data: each one's modules (``knownLibraryModules``) and its ways
  /// out of references it holds to your objects. Add your own per graph with ``libraries``.
  public static let knownLibraries: [LibraryRule] = KnownLibraries.all

  /// The library modules a graph uses when none are given: ``knownLibraryModules`` and the modules
  /// named in the environment variable `RETAIN_GRAPH_LIBRARY_MODULES` (module names separated by
  /// commas, read once): `RETAIN_GRAPH_LIBRARY_MODULES=MyNetworking,ThirdPartySDK swift test` names
  /// your dependencies for a whole run without code; per graph, give them in ``libraries`` or
  /// ``libraryModules``.
  public static var defaultLibraryModules: Set<String> {
    knownLibraryModules.union(environmentLibraryModules)
  }

  /// The modules named in `RETAIN_GRAPH_LIBRARY_MODULES`, read once.
  static let environmentLibraryModules: Set<String> = libraryModules(
    fromEnvironmentValue: getenv("RETAIN_GRAPH_LIBRARY_MODULES").map { String(cString: $0) })

  /// The module names in a value of `RETAIN_GRAPH_LIBRARY_MODULES`: separated by commas, spaces
  /// around them ignored, empty names skipped.
  static func libraryModules(fromEnvironmentValue value: String?) -> Set<String> {
    guard let value else { return [] }
    return Set(
      value.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }.map(String.init))
  }
}

extension Substring {
  /// The text without the spaces and tabs around it.
  fileprivate func trimmingSpaces() -> Substring {
    var text = drop { $0 == " " || $0 == "\t" }
    while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
    return text
  }
}

/// A metatype that can be stored in a `Sendable` value.
struct TypeID: Hashable, @unchecked Sendable {
  let type: any Any.Type
  init(_ type: any Any.Type) { self.type = type }
  static func == (lhs: TypeID, rhs: TypeID) -> Bool { lhs.type == rhs.type }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(type)) }
}

/// A type-name pattern of ``GraphOptions/ignoredTypeNames``: `*` matches any run of characters.
struct TypeNamePattern: Sendable, Hashable {
  let text: String
  private let parts: [[UInt8]]

  init(_ text: String) {
    self.text = text
    parts = text.utf8.split(separator: UInt8(ascii: "*"), omittingEmptySubsequences: false).map(Array.init)
  }

  /// Whether `name` (a qualified type name) matches, whole or without its leading module.
  func matches(qualifiedName name: String) -> Bool {
    if matchesWhole(Array(name.utf8)) { return true }
    guard let dot = name.firstIndex(of: "."), !name[..<dot].contains("<"), !name[..<dot].contains("(") else {
      return false
    }
    return matchesWhole(Array(name[name.index(after: dot)...].utf8))
  }

  /// Glob match of the whole text: the first part a prefix, the last a suffix, the others in order.
  private func matchesWhole(_ name: [UInt8]) -> Bool {
    guard parts.count > 1 else { return name == parts[0] }
    guard name.count >= parts.reduce(0, { $0 + $1.count }),
      name.starts(with: parts[0]), name.reversed().starts(with: parts[parts.count - 1].reversed())
    else { return false }
    var position = parts[0].count
    let end = name.count - parts[parts.count - 1].count
    for part in parts.dropFirst().dropLast() where !part.isEmpty {
      guard let found = Self.find(part, in: name, from: position, before: end) else { return false }
      position = found + part.count
    }
    return position <= end
  }

  private static func find(_ part: [UInt8], in name: [UInt8], from start: Int, before end: Int) -> Int? {
    guard end - start >= part.count else { return nil }
    for index in start...(end - part.count) where name[index..<(index + part.count)].elementsEqual(part) {
      return index
    }
    return nil
  }
}
