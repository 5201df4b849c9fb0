import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Testing

/// Quiet where it should be: many survivors of one type are one line with a count, each path from
/// the root stands apart, and a library's unreadable closure contexts are one short line.
@Suite("Quiet reports")
struct QuietReportTests {
  @Test func survivorsOfOneTypeAreCounted() throws {
    let outside = MessageArchive()
    weak var first: ArchivedMessage?
    let text = try #require(
      checkNoLeaks(timeout: .milliseconds(100)) {
        let inbox = Inbox(archive: outside, count: 25)
        first = inbox.messages.first
        return inbox
      }
    ).description
    assertGolden(text, named: "twenty-five-survivors")
    #expect(first != nil)
    outside.messages.removeAll()
    #expect(first == nil)
  }

  /// Two survivors of different types: two paths, a blank line apart.
  @Test func pathsStandApart() throws {
    let outside = MessageArchive()
    let text = try #require(
      checkNoLeaks(timeout: .milliseconds(100)) { Inbox(archive: outside, count: 1, withFolder: true) }
    ).description
    assertGolden(text, named: "two-paths")
    outside.messages.removeAll()
    outside.folders.removeAll()
  }

  /// Three of a library's closure contexts the walk could not read, beside a cycle of yours: one
  /// short line for the library, not three long sentences.
  @Test func aLibrarysUnreadClosuresAreOneShortLine() throws {
    let names = (1...3).map {
      "closure #\($0) in Logging.Logger.MetadataProvider.init(_: @Sendable () -> [Swift.String : Logging.Logger.MetadataValue]) -> Logging.Logger.MetadataProvider"
    }
    let nodes =
      [
        Node(id: 0, typeName: "App.Session", kind: .object),
        Node(id: 1, typeName: "App.Handler", kind: .object),
      ] + names.enumerated().map { Node(id: $0.offset + 2, typeName: $0.element, kind: .closure) }
    let edges =
      [
        Edge(from: 0, to: 1, label: "handler", ownership: .strong, kind: .property, property: "handler"),
        Edge(from: 1, to: 0, label: "session", ownership: .strong, kind: .property, property: "session"),
      ]
      + names.indices.map {
        Edge(
          from: 0, to: $0 + 2, label: "providers[\($0)]", ownership: .strong, kind: .element,
          property: "providers")
      }
    let notes = names.enumerated().map {
      GraphNote(
        kind: .unrecognisedClosure, node: $0.offset + 2, typeName: $0.element,
        description: "\($0.element): closure context layout not recognised; its captures are not shown")
    }
    let graph = try ObjectGraph(nodes: nodes, edges: edges, walkNotes: notes)
    #expect(graph.isComplete)
    assertGolden(graph.report(), named: "library-closures-report")
    // Without the cycle, the graph is clean and the report says nothing.
    let clean = try ObjectGraph(nodes: nodes, edges: Array(edges.dropFirst(2)), walkNotes: notes)
    #expect(clean.report() == "")
  }
}

final class ArchivedMessage {}
final class ArchivedFolder {}

/// Keeps messages outside the inbox's graph.
final class MessageArchive {
  var messages: [ArchivedMessage] = []
  var folders: [ArchivedFolder] = []
}

final class Inbox {
  let messages: [ArchivedMessage]
  let folder: ArchivedFolder?
  init(archive: MessageArchive, count: Int, withFolder: Bool = false) {
    messages = (0..<count).map { _ in ArchivedMessage() }
    archive.messages += messages
    folder = withFolder ? ArchivedFolder() : nil
    if let folder { archive.folders.append(folder) }
  }
}
