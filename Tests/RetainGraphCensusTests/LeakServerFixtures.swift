import Foundation

// A server-like fixture for `HeapCensus.leaks()` (issue 31.1): an actor registry, route handlers,
// a logger's metadata provider and a stream consumer, each with a cycle, and a fixed twin
// (`weak`/`[weak self]`) of each.

/// A connection an actor registry keeps; its close handler captures the registry.
final class LeakServerConnection: @unchecked Sendable {
  var onClose: (@Sendable () -> Void)?
}

actor LeakServerRegistry {
  var connections: [Int: LeakServerConnection] = [:]

  func add(_ id: Int, weakly: Bool) {
    let connection = LeakServerConnection()
    if weakly {
      connection.onClose = { [weak self] in _ = self }
    } else {
      connection.onClose = { _ = self }
    }
    connections[id] = connection
  }
}

/// A router whose route handlers capture the application that owns the router.
final class LeakServerApp: @unchecked Sendable {
  final class Router {
    var routes: [String: (String) -> String] = [:]
  }

  let router = Router()
  var greeting = "hello"

  init(weakly: Bool) {
    if weakly {
      router.routes["/hello"] = { [weak self] name in "\(self?.greeting ?? "") \(name)" }
    } else {
      router.routes["/hello"] = { name in "\(self.greeting) \(name)" }
    }
  }
}

/// A logger whose metadata provider captures the service that owns the logger.
final class LeakServerService: @unchecked Sendable {
  struct Logger {
    var metadataProvider: () -> [String: String]
  }

  var logger = Logger(metadataProvider: { [:] })
  var requestID = "r1"

  init(weakly: Bool) {
    if weakly {
      logger.metadataProvider = { [weak self] in ["request": self?.requestID ?? ""] }
    } else {
      logger.metadataProvider = { ["request": self.requestID] }
    }
  }
}

/// A consumer whose element handler, kept by the stream it consumes, captures the consumer.
final class LeakServerConsumer: @unchecked Sendable {
  final class Stream {
    var onElement: ((Int) -> Void)?
  }

  let stream = Stream()
  var total = 0

  init(weakly: Bool) {
    if weakly {
      stream.onElement = { [weak self] value in self?.total += value }
    } else {
      stream.onElement = { value in self.total += value }
    }
  }
}
