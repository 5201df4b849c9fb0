internal import RetainGraphRuntime

/// The former name of ``LibraryRule`` inside the package.
package typealias KnownLibrary = LibraryRule

/// The libraries known by name: the toolchain's, and the packages Swift users depend on.
package enum KnownLibraries {
  package static let all: [KnownLibrary] = [
    KnownLibrary(
      name: "the standard library",
      modules: [
        "Swift", "_Concurrency", "_StringProcessing", "RegexBuilder", "Synchronization", "Distributed",
      ]),
    KnownLibrary(name: "Observation", modules: ["Observation"]),
    KnownLibrary(
      name: "Foundation",
      modules: [
        "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking",
        "FoundationXML", "CoreFoundation",
      ]),
    KnownLibrary(name: "Dispatch", modules: ["Dispatch"]),
    KnownLibrary(name: "the Objective-C runtime", modules: ["ObjectiveC", "os"]),
    KnownLibrary(name: "the test libraries", modules: ["XCTest", "Testing"]),
    KnownLibrary(
      name: "Combine", modules: ["Combine"],
      wayOuts: [combineAssign]),
    KnownLibrary(name: "Apple's UI frameworks", modules: ["SwiftUI", "UIKit", "AppKit"]),
    KnownLibrary(
      name: "OpenCombine", modules: ["OpenCombine", "OpenCombineFoundation", "OpenCombineDispatch"],
      wayOuts: [combineAssign]),
    KnownLibrary(name: "CombineExt", modules: ["CombineExt"]),
    KnownLibrary(name: "RxSwift", modules: ["RxSwift", "RxCocoa", "RxRelay"]),
    KnownLibrary(name: "ReactiveSwift", modules: ["ReactiveSwift", "ReactiveCocoa"]),
    KnownLibrary(
      name: "SwiftNIO",
      modules: [
        "NIO", "NIOCore", "NIOPosix", "NIOEmbedded", "NIOConcurrencyHelpers", "NIOHTTP1", "NIOWebSocket",
        "NIOFoundationCompat", "NIOTLS", "NIOTestUtils", "_NIODataStructures", "_NIOBase64", "_NIOFileSystem",
        "NIOFileSystem", "NIOSSL", "NIOHTTP2", "NIOHPACK", "NIOExtras", "NIOHTTPCompression", "NIOSOCKS",
        "NIOTransportServices", "NIOHTTPTypes", "NIOHTTPTypesHTTP1", "NIOHTTPTypesHTTP2",
      ]),
    KnownLibrary(name: "Swinject", modules: ["Swinject"]),
    KnownLibrary(name: "swift-async-algorithms", modules: ["AsyncAlgorithms"]),
    KnownLibrary(
      name: "swift-collections", modules: ["Collections", "DequeModule", "OrderedCollections", "HeapModule"]),
    KnownLibrary(
      name: "GRDB", modules: ["GRDB"],
      wayOuts: [
        KnownLibrary.WayOut(
          holder: "TransactionObservation", property: "strongObserver",
          advice: "remove the observer when done (`remove(transactionObserver:)`), or add it with extent "
            + "`.observerLifetime` (GRDB then holds it weakly)")
      ]),
    KnownLibrary(
      name: "Vapor",
      modules: [
        "Vapor", "XCTVapor", "VaporTesting", "RoutingKit", "ConsoleKit", "ConsoleKitTerminal",
        "ConsoleKitCommands", "MultipartKit", "WebSocketKit", "AsyncKit", "Fluent", "FluentKit", "FluentSQL",
        "XCTFluent", "FluentPostgresDriver", "FluentSQLiteDriver", "FluentMySQLDriver", "FluentMongoDriver",
        "SQLKit", "PostgresKit", "PostgresNIO", "SQLiteKit", "SQLiteNIO", "MySQLKit", "MySQLNIO", "Leaf",
        "LeafKit", "JWT", "JWTKit", "Queues", "Redis", "RediStack",
      ]),
    KnownLibrary(name: "AsyncHTTPClient", modules: ["AsyncHTTPClient"]),
    KnownLibrary(
      name: "Hummingbird",
      modules: [
        "Hummingbird", "HummingbirdCore", "HummingbirdHTTP2", "HummingbirdTLS", "HummingbirdRouter",
        "HummingbirdTesting", "HummingbirdWebSocket", "HummingbirdWSCore", "HummingbirdAuth",
        "HummingbirdFluent", "HummingbirdRedis", "HummingbirdLambda",
      ]),
    KnownLibrary(name: "FlyingFox", modules: ["FlyingFox", "FlyingSocks"]),
    KnownLibrary(name: "the MCP Swift SDK", modules: ["MCP"]),
    KnownLibrary(
      name: "Point-Free's libraries",
      modules: [
        "Dependencies", "DependenciesMacros", "DependenciesTestSupport", "ComposableArchitecture",
        "CasePaths",
        "IdentifiedCollections", "Perception", "PerceptionCore", "Sharing", "CustomDump", "IssueReporting",
        "IssueReportingTestSupport", "XCTestDynamicOverlay", "ConcurrencyExtras", "Clocks",
        "CombineSchedulers",
        "SwiftNavigation", "SwiftUINavigation", "UIKitNavigation",
      ]),
    KnownLibrary(name: "swift-log", modules: ["Logging"]),
    KnownLibrary(
      name: "swift-service-lifecycle", modules: ["ServiceLifecycle", "UnixSignals", "ServiceContextModule"]),
    KnownLibrary(
      name: "gRPC Swift",
      modules: [
        "GRPC", "GRPCCore", "GRPCInProcessTransport", "GRPCNIOTransportCore", "GRPCNIOTransportHTTP2",
        "GRPCNIOTransportHTTP2Posix", "GRPCNIOTransportHTTP2TransportServices", "GRPCProtobuf",
        "GRPCHealthService", "GRPCReflectionService", "GRPCServiceLifecycle",
      ]),
  ]

  /// `assign(to:on:)`'s subscriber holds the object it assigns to.
  private static let combineAssign = KnownLibrary.WayOut(
    holder: "Assign", property: "object",
    advice: "use `sink` with a closure that captures `[weak self]` instead of `assign(to:on:)`, or "
      + "cancel the AnyCancellable when done")

  /// Every known library's modules.
  package static let modules: Set<String> = Set(all.flatMap(\.modules))

  /// The known library of each module.
  private static let byModule: [String: Int] = {
    var index: [String: Int] = [:]
    for (position, library) in all.enumerated() {
      for module in library.modules { index[module] = position }
    }
    return index
  }()

  /// The known library a module belongs to.
  package static func library(ofModule module: some StringProtocol) -> KnownLibrary? {
    byModule[String(module)].map { all[$0] }
  }

  /// The way out of a reference held by a library's `holder` type (its name without the module and
  /// the generic arguments) in `property`: the holder's module's rules' among `extra` (a graph's
  /// own) first, then its known library's, or, for a module no known library has (one you named: a
  /// fork, a twin), any known library's with that holder.
  static func wayOut(
    module: Substring?, holder: String, property: String?, extra: [LibraryRule] = []
  ) -> String? {
    let own = module.map { module in extra.filter { $0.modules.contains(String(module)) } } ?? []
    let known = module.flatMap { library(ofModule: $0) }.map { [$0] } ?? all
    let candidates = own + known
    for library in candidates {
      if let found = library.wayOuts.first(where: {
        $0.holder == holder && ($0.property == nil || $0.property == property)
      }) {
        return found.advice
      }
    }
    return nil
  }
}

/// The library modules one graph's plans use, and questions about them.
struct Libraries: Sendable {
  let modules: Set<String>

  /// Whether a node's type (a closure's function) is declared in one of ``modules``.
  func isLibrary(nodeNamed name: String) -> Bool {
    TypeNames.module(ofNodeNamed: name).map { modules.contains(String($0)) } ?? false
  }
}
