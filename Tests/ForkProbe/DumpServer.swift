import Foundation
import RetainGraphCensus

// `dump-server DIR` (CensusDumpSignalTests): a service-like process with the census running and
// planted cycles. It installs the SIGUSR2 dump handler on DIR, prints `ready`, then follows its
// standard input, one command a line:
//   grow    allocate 25 requests into the registry and plant a second leaked cycle; prints `grown`
//   status  prints `requests N sessions-alive B connections-alive B`: the registry's own count, and
//           whether the weak probes of the two leaked cycles are still set
//   exit    exits 0
// Each dump the handler writes is printed as `dumped PATH` (or `dump failed REASON`).

final class ServerRegistry {
  var requests: [ServerRequest] = []
}

final class ServerRequest {
  let id: Int
  init(id: Int) { self.id = id }
}

/// Leaked before the first dump: a session and its handler's closure.
final class ServerSession {
  var onClose: (() -> Void)?
}

/// Leaked between the dumps: a connection and its delegate.
final class ServerConnection {
  var delegate: ServerConnectionDelegate?
}

final class ServerConnectionDelegate {
  var connection: ServerConnection?
}

/// The fixed twin of the connection: weak back reference, freed.
final class ServerFixedConnection {
  var delegate: ServerFixedDelegate?
}

final class ServerFixedDelegate {
  weak var connection: ServerFixedConnection?
}

let output = FileHandle.standardOutput
let outputLock = NSLock()

func say(_ line: String) {
  outputLock.lock()
  defer { outputLock.unlock() }
  output.write(Data((line + "\n").utf8))
}

func runDumpServer(directory: String) -> Never {
  HeapCensus.start()
  let registry = ServerRegistry()
  weak var session: ServerSession?
  weak var connection: ServerConnection?
  weak var fixed: ServerFixedConnection?
  do {
    let leaked = ServerSession()
    leaked.onClose = { _ = leaked }
    session = leaked
  }
  do {
    try HeapCensus.installDumpHandler(signal: SIGUSR2, directory: directory) { result in
      switch result {
      case .success(let path): say("dumped \(path)")
      case .failure(let error): say("dump failed \(error)")
      }
    }
  } catch {
    say("install failed \(error)")
    exit(1)
  }
  say("ready")
  while let line = readLine() {
    switch line {
    case "grow":
      registry.requests += (0..<25).map { ServerRequest(id: $0) }
      do {
        let leaked = ServerConnection()
        leaked.delegate = ServerConnectionDelegate()
        leaked.delegate?.connection = leaked
        connection = leaked
        let twin = ServerFixedConnection()
        twin.delegate = ServerFixedDelegate()
        twin.delegate?.connection = twin
        fixed = twin
      }
      say("grown")
    case "status":
      say(
        "requests \(registry.requests.count) sessions-alive \(session != nil) "
          + "connections-alive \(connection != nil) fixed-alive \(fixed != nil)")
    case "exit":
      exit(0)
    default:
      say("unknown \(line)")
    }
  }
  exit(0)
}
