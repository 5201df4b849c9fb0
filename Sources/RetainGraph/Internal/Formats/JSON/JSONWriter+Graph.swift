internal import Foundation
internal import RetainGraphFormats
internal import RetainGraphSnapshots

extension JSONWriter {
  /// `graph` as ``ObjectGraph/jsonData()`` writes it: format `retain-graph`, version
  /// ``JSONFormat/version``, keys sorted, one line feed at the end.
  static func graph(_ graph: ObjectGraph) -> Data {
    var json = JSONWriter(reservingCapacity: 64 + 96 * graph.nodeCount + 128 * graph.edgeCount)
    json.beginObject()
    if !graph.danglingReferences.isEmpty {
      json.key("dangling")
      json.beginArray()
      for dangling in graph.danglingReferences {
        json.element()
        json.beginObject()
        json.member("holder", dangling.holder)
        json.member("label", dangling.label)
        json.endObject()
      }
      json.endArray()
    }
    json.key("edges")
    json.beginArray()
    for index in 0..<graph.edgeCount {
      let edge = graph.edge(at: index)
      json.element()
      json.beginObject()
      // Keys in ascending order: capture, from, function, kind, label, method, ownership, property, to.
      if let index = edge.kind.captureIndex { json.member("capture", index) }
      json.member("from", edge.from)
      if let function = edge.closureFunction { json.member("function", function) }
      json.member("kind", edge.kind.jsonName)
      json.member("label", edge.label)
      if case .methodReference(let method) = edge.kind { json.member("method", method) }
      json.member("ownership", edge.ownership.rawValue)
      if let property = edge.property { json.member("property", property) }
      json.member("to", edge.to)
      json.endObject()
    }
    json.endArray()
    json.member("format", SnapshotFormat.formatName)
    json.key("nodes")
    json.beginArray()
    for id in 0..<graph.nodeCount {
      let node = graph.node(id)
      json.element()
      json.beginObject()
      json.member("id", node.id)
      json.member("kind", node.kind.rawValue)
      json.member("type", node.typeName)
      json.endObject()
    }
    json.endArray()
    // The notes as values, when they say more than the sentences in `notes`.
    if graph.walkNotes.contains(where: { $0.kind != .unknown || $0.node != nil || !$0.typeName.isEmpty }) {
      json.key("noteDetails")
      json.beginArray()
      for note in graph.walkNotes {
        json.element()
        json.beginObject()
        json.member("description", note.description)
        json.member("kind", note.kind.rawValue)
        if let node = note.node { json.member("node", node) }
        json.member("type", note.typeName)
        json.endObject()
      }
      json.endArray()
    }
    let sentences = graph.noteSentences
    if !sentences.isEmpty {
      json.key("notes")
      json.beginArray()
      for note in sentences {
        json.element()
        json.string(note)
      }
      json.endArray()
    }
    json.member("root", graph.root)
    // Where the fixes' declarations are, when the debug information said.
    var located: [String: CodeLocation] = [:]
    for cycle in graph.cycles {
      for fix in cycle.fixPlan {
        if let declaration = fix.declaration, let location = fix.location {
          located[declaration.key] = location
        }
        if let alternative = fix.alternative, let declaration = alternative.declaration,
          let location = alternative.location
        {
          located[declaration.key] = location
        }
      }
    }
    if !located.isEmpty {
      json.key("sourceLocations")
      json.beginArray()
      for (key, location) in located.sorted(by: { $0.key < $1.key }) {
        json.element()
        json.beginObject()
        if let column = location.column { json.member("column", column) }
        json.member("declaration", key)
        json.member("file", location.file)
        json.member("line", location.line)
        json.endObject()
      }
      json.endArray()
    }
    json.key("truncated")
    json.boolean(graph.isTruncated)
    json.member("version", SnapshotFormat.version)
    json.endObject()
    json.bytes.append(0x0A)
    return Data(json.bytes)
  }
}
