import Foundation
import RetainGraph
import Testing

/// Notes as values: made by the walk with their node, kept through JSON and the forked walk.
@Suite("Notes as values")
struct GraphNoteTests {
  @Test func theWalkNotesItsNodeAndKind() throws {
    let holder = NoteHolder()
    let graph = ObjectGraph(reflecting: holder)
    let note = try #require(graph.walkNotes.first)
    #expect(graph.walkNotes.count == 1)
    #expect(note.kind == .unreadElements)
    #expect(note.node.map { graph.node($0).shortTypeName } == "NotedBuffer")
    #expect(note.typeName == "RetainGraphTests.NotedBuffer")
    #expect(graph.walkNotes.map(\.description) == [note.description])
    #expect(!graph.isComplete)
    // The note lies on its node and on nodes of the same type, not on the holder alone.
    #expect(graph.notes(about: [note.node ?? -1]) == [note])
    #expect(graph.notes(about: [graph.root]).isEmpty)
  }

  @Test func aCutIsATruncatedNoteOnceAndNotAmongTheSentences() {
    let holder = NoteHolder()
    let graph = ObjectGraph(
      reflecting: [holder, NoteHolder(), NoteHolder()], options: GraphOptions(maxNodes: 2))
    #expect(graph.isTruncated)
    #expect(graph.walkNotes.filter { $0.kind == .truncated }.count == 1)
    #expect(!graph.walkNotes.contains { $0.kind != .truncated && $0.description.contains("maxNodes") })
    let deep = ObjectGraph(reflecting: holder, options: GraphOptions(maxDepth: 0))
    #expect(deep.walkNotes.map(\.kind) == [.truncated])
    #expect(deep.walkNotes.first?.description.contains("maxDepth (0)") == true)
  }

  @Test func notesSurviveJSON() throws {
    let graph = ObjectGraph(reflecting: [NoteHolder(), NoteHolder()], options: GraphOptions(maxNodes: 4))
    #expect(graph.walkNotes.count == 2)
    let read = try ObjectGraph(jsonData: graph.jsonData())
    #expect(read.walkNotes == graph.walkNotes)
    #expect(read.isComplete == graph.isComplete)
  }

  /// A file written before notes had kinds (today's version 2 without `noteDetails`) still reads:
  /// its notes are of kind `unknown`, with no node, and count as the user's.
  @Test func aFileWithoutNoteDetailsReads() throws {
    let text = """
      {"edges":[],"format":"retain-graph","nodes":[{"id":0,"kind":"object","type":"App.A"}],\
      "notes":["App.A: something was not read"],"root":0,"truncated":false,"version":2}
      """
    let graph = try ObjectGraph(jsonData: Data(text.utf8))
    #expect(graph.walkNotes == [GraphNote(kind: .unknown, description: "App.A: something was not read")])
    #expect(!graph.isComplete)
  }

  @Test func aNoteOnAnUnknownNodeIsRejected() {
    let text = """
      {"edges":[],"format":"retain-graph","nodes":[{"id":0,"kind":"object","type":"App.A"}],\
      "noteDetails":[{"description":"x","kind":"hiddenType","node":4,"type":"T"}],\
      "notes":["x"],"root":0,"truncated":false,"version":2}
      """
    #expect(throws: GraphDecodingError("noteDetails[0].node: 4 is not the id of a node")) {
      try ObjectGraph(jsonData: Data(text.utf8))
    }
  }

  @Test func notesSurviveTheForkedWalk() throws {
    let holder = NoteHolder()
    let forked = try ObjectGraph(snapshotting: holder)
    let walked = ObjectGraph(reflecting: holder)
    #expect(forked.walkNotes == walked.walkNotes)
    #expect(!forked.walkNotes.isEmpty)
  }
}

final class NotedBuffer: ManagedBuffer<Int, NoteLeaf> {}
final class NoteLeaf {}

final class NoteHolder {
  let buffer = NotedBuffer.create(minimumCapacity: 0) { _ in 0 }
  let leaf = NoteLeaf()
}
