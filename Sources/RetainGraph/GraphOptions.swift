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
  /// Edge labels to leave out. An entry matches an edge whose label equals it (`output`) or whose
  /// holder's short type name and label do (`Interactor.output`). Use it to accept a known cycle.
  public var ignoredLabels: Set<String>
  /// Whether stored closures are followed to what they capture.
  public var includeClosures: Bool

  /// Modules whose code is not yours (the toolchain's and well-known packages': see
  /// ``knownLibraryModules``). When a graph has objects of other modules too, a fix plan never asks
  /// you to weaken a reference one library object holds to another: it frees your objects with
  /// references that touch them, and a loop among library objects alone is left to the library
  /// (``Cycle/libraryLoopMembers``). Add the modules of your own dependencies here; a graph whose
  /// objects are all of these modules is planned as if the set were empty.
  public var libraryModules: Set<String>

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
  ///   - ignoredLabels: edge labels (`output` or `Interactor.output`) to leave out.
  ///   - includeClosures: whether to follow closures to their captures.
  ///   - libraryModules: modules whose code is not yours (default ``knownLibraryModules``).
  public init(
    maxNodes: Int = 100_000,
    maxDepth: Int? = nil,
    ignoredTypes: [any Any.Type] = [],
    ignoredLabels: Set<String> = [],
    includeClosures: Bool = true,
    libraryModules: Set<String> = GraphOptions.knownLibraryModules
  ) {
    self.nodeLimit = max(1, maxNodes)
    self.maxDepth = maxDepth
    self.ignoredTypeIDs = ignoredTypes.map(TypeID.init)
    self.ignoredLabels = ignoredLabels
    self.includeClosures = includeClosures
    self.libraryModules = libraryModules
  }

  /// The toolchain's modules (the standard library, Foundation, Dispatch, concurrency,
  /// Synchronization, the test libraries, Apple's UI frameworks and Combine) and the modules of
  /// well-known packages whose objects commonly hold an app's (OpenCombine, RxSwift,
  /// ReactiveSwift, swift-nio, Swinject, swift-async-algorithms, swift-collections).
  public static let knownLibraryModules: Set<String> = [
    "Swift", "_Concurrency", "_StringProcessing", "RegexBuilder", "Synchronization", "Observation",
    "Distributed", "Foundation", "FoundationEssentials", "FoundationInternationalization",
    "FoundationNetworking", "FoundationXML", "CoreFoundation", "Dispatch", "ObjectiveC", "os",
    "XCTest", "Testing", "Combine", "SwiftUI", "UIKit", "AppKit",
    "OpenCombine", "OpenCombineFoundation", "OpenCombineDispatch", "CombineExt",
    "RxSwift", "RxCocoa", "RxRelay", "ReactiveSwift", "ReactiveCocoa",
    "NIO", "NIOCore", "NIOPosix", "NIOEmbedded", "NIOConcurrencyHelpers", "NIOHTTP1",
    "Swinject", "AsyncAlgorithms", "Collections", "DequeModule", "OrderedCollections", "HeapModule",
  ]
}

/// A metatype that can be stored in a `Sendable` value.
struct TypeID: Hashable, @unchecked Sendable {
  let type: any Any.Type
  init(_ type: any Any.Type) { self.type = type }
  static func == (lhs: TypeID, rhs: TypeID) -> Bool { lhs.type == rhs.type }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(type)) }
}
