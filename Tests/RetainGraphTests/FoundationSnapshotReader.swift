import Foundation

@testable import RetainGraph

/// The snapshot reader as it was before the byte-level one: Foundation's `JSONSerialization` into
/// `[String: Any]`, then validation by hand into the public init. Kept here, unchanged in what it
/// accepts and what it says, as the independent computation ``JSONReaderDifferentialTests`` compares
/// `ObjectGraph(jsonData:)` with.
struct FoundationSnapshotReader {
  let data: Data

  func graph() throws(GraphDecodingError) -> ObjectGraph {
    let parsed: Any
    do {
      parsed = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    } catch {
      let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
      throw GraphDecodingError("not JSON: \(reason ?? error.localizedDescription)")
    }
    guard let top = parsed as? [String: Any] else {
      throw GraphDecodingError("the top level: expected an object, found \(Self.describe(parsed))")
    }
    let format = try string(top, "format", at: "")
    guard format == "retain-graph" else {
      throw GraphDecodingError(
        "format: expected \"retain-graph\", found \"\(format)\"; this is not a retain-graph JSON file")
    }
    let version = try integer(top, "version", at: "")
    guard (1...2).contains(version) else {
      throw GraphDecodingError(
        "version: \(version) is not supported; this reader understands versions 1 and 2")
    }
    let root = try integer(top, "root", at: "")
    let truncated = try boolean(top, "truncated", at: "")

    let nodeRecords = try array(top, "nodes", at: "")
    var slots = [Node?](repeating: nil, count: nodeRecords.count)
    var firstIndex = [Int](repeating: -1, count: nodeRecords.count)
    for (index, record) in nodeRecords.enumerated() {
      let place = "nodes[\(index)]"
      let fields = try object(record, at: place)
      let id = try integer(fields, "id", at: place)
      let type = try string(fields, "type", at: place)
      let kindText = try string(fields, "kind", at: place)
      guard let kind = Node.Kind(rawValue: kindText) else {
        let known = Node.Kind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        throw GraphDecodingError("\(place).kind: unknown kind \"\(kindText)\"; expected one of \(known)")
      }
      guard slots.indices.contains(id) else {
        throw GraphDecodingError(
          "\(place).id: \(id) is out of range; ids must be 0..<\(nodeRecords.count), one per node, none missing"
        )
      }
      guard slots[id] == nil else {
        throw GraphDecodingError("\(place).id: duplicate id \(id) (also nodes[\(firstIndex[id])].id)")
      }
      slots[id] = Node(id: id, typeName: type, kind: kind)
      firstIndex[id] = index
    }
    let nodes = slots.compactMap { $0 }

    let edgeRecords = try array(top, "edges", at: "")
    var edges: [Edge] = []
    for (index, record) in edgeRecords.enumerated() {
      let place = "edges[\(index)]"
      let fields = try object(record, at: place)
      let from = try integer(fields, "from", at: place)
      let to = try integer(fields, "to", at: place)
      let label = try string(fields, "label", at: place)
      let ownershipText = try string(fields, "ownership", at: place)
      guard let ownership = Ownership(rawValue: ownershipText) else {
        let known = Ownership.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        throw GraphDecodingError(
          "\(place).ownership: unknown ownership \"\(ownershipText)\"; expected one of \(known)")
      }
      guard version >= 2 else {
        let (kind, property) = Self.versionOneReference(label)
        edges.append(
          Edge(from: from, to: to, label: label, ownership: ownership, kind: kind, property: property))
        continue
      }
      let kind = try edgeKind(fields, at: place)
      let property = try optionalString(fields, "property", at: place)
      let function = try optionalString(fields, "function", at: place)
      edges.append(
        Edge(
          from: from, to: to, label: label, ownership: ownership, kind: kind, property: property,
          closureFunction: function))
    }

    var dangling: [DanglingReference] = []
    if let records = try optionalArray(top, "dangling") {
      for (index, record) in records.enumerated() {
        let place = "dangling[\(index)]"
        let fields = try object(record, at: place)
        let holder = try integer(fields, "holder", at: place)
        dangling.append(DanglingReference(holder: holder, label: try string(fields, "label", at: place)))
      }
    }
    var notes: [String] = []
    if let records = try optionalArray(top, "notes") {
      for (index, record) in records.enumerated() {
        guard let note = record as? String else {
          throw GraphDecodingError("notes[\(index)]: expected a string, found \(Self.describe(record))")
        }
        notes.append(note)
      }
    }
    let graph = try ObjectGraph(
      nodes: nodes, edges: edges, root: root, isTruncated: truncated, danglingReferences: dangling,
      notes: notes)
    graph.storage.sourceLocations.adopt(try sourceLocations(top))
    return graph
  }

  /// `sourceLocations`, checked after everything else, as the reader checks it: each record's
  /// declaration (`property Type.name` or `closure name`), file (not empty), line and column (from 1,
  /// the column optional).
  private func sourceLocations(_ top: [String: Any]) throws(GraphDecodingError) -> [SourceDeclaration:
    CodeLocation]
  {
    var locations: [SourceDeclaration: CodeLocation] = [:]
    for (index, record) in (try optionalArray(top, "sourceLocations") ?? []).enumerated() {
      let place = "sourceLocations[\(index)]"
      let fields = try object(record, at: place)
      let key = try string(fields, "declaration", at: place)
      let words = key.split(separator: " ", maxSplits: 1).map(String.init)
      let declaration: SourceDeclaration
      if words.count == 2, words[0] == "closure" {
        declaration = .closure(function: words[1])
      } else if words.count == 2, words[0] == "property", let dot = words[1].lastIndex(of: "."),
        dot != words[1].startIndex, words[1].index(after: dot) != words[1].endIndex
      {
        declaration = .storedProperty(
          type: String(words[1][..<dot]), name: String(words[1][words[1].index(after: dot)...]))
      } else {
        throw GraphDecodingError(
          "\(place).declaration: expected \"property Type.name\" or \"closure name\", found \"\(key)\""
        )
      }
      let file = try string(fields, "file", at: place)
      guard !file.isEmpty else { throw GraphDecodingError("\(place).file: expected a path, found \"\"") }
      let line = try integer(fields, "line", at: place)
      guard line >= 1 else {
        throw GraphDecodingError("\(place).line: expected a line number from 1, found \(line)")
      }
      var column: Int?
      if let value = fields["column"], !(value is NSNull) {
        column = try integer(fields, "column", at: place)
      }
      if let column, column < 1 {
        throw GraphDecodingError("\(place).column: expected a column number from 1, found \(column)")
      }
      locations[declaration] = CodeLocation(file: file, line: line, column: column)
    }
    return locations
  }

  /// A version 1 edge's kind and property, from its label alone, as that version's grammar writes
  /// them (written here apart from the library's reading, to check it).
  static func versionOneReference(_ label: String) -> (Edge.Kind, String?) {
    func firstName(_ path: Substring) -> String? {
      let name = path.prefix { !".[ ".contains($0) }
      return name.isEmpty ? nil : String(name)
    }
    if label == "suspended frame" { return (.suspendedFrame, nil) }
    if label.hasSuffix(")"), let open = label.range(of: " (method ") {
      return (
        .methodReference(method: String(label[open.upperBound..<label.index(before: label.endIndex)])),
        firstName(label[..<open.lowerBound])
      )
    }
    for (marker, kind) in [(" (closure) → capture 0", Edge.Kind.singleCapture), (" (closure)", .closure)]
    where label.hasSuffix(marker) {
      return (kind, firstName(label.dropLast(marker.count)))
    }
    if label.hasPrefix("capture "), let index = Int(label.dropFirst(8).prefix { $0.isNumber }) {
      return (
        label.hasSuffix(" (actor isolation)") ? .actorIsolation(index: index) : .capture(index: index), nil
      )
    }
    return (label.contains("[") ? .element : .property, firstName(label[...]))
  }

  private func edgeKind(_ fields: [String: Any], at place: String) throws(GraphDecodingError) -> Edge.Kind {
    let name = try string(fields, "kind", at: place)
    switch name {
    case "capture": return .capture(index: try integer(fields, "capture", at: place))
    case "methodReference": return .methodReference(method: try string(fields, "method", at: place))
    default:
      guard let kind = Edge.Kind(jsonName: name) else {
        let known = Edge.Kind.jsonNames.map { "\"\($0)\"" }.joined(separator: ", ")
        throw GraphDecodingError("\(place).kind: unknown kind \"\(name)\"; expected one of \(known)")
      }
      return kind
    }
  }

  private func optionalString(_ fields: [String: Any], _ key: String, at place: String)
    throws(GraphDecodingError) -> String?
  {
    guard let value = fields[key], !(value is NSNull) else { return nil }
    guard let text = value as? String else {
      throw GraphDecodingError("\(Self.join(place, key)): expected a string, found \(Self.describe(value))")
    }
    return text
  }

  private func object(_ value: Any, at place: String) throws(GraphDecodingError) -> [String: Any] {
    guard let fields = value as? [String: Any] else {
      throw GraphDecodingError("\(place): expected an object, found \(Self.describe(value))")
    }
    return fields
  }

  private func field(_ fields: [String: Any], _ key: String, at place: String) throws(GraphDecodingError)
    -> Any
  {
    guard let value = fields[key] else { throw GraphDecodingError("\(Self.join(place, key)): missing field") }
    return value
  }

  private func integer(_ fields: [String: Any], _ key: String, at place: String) throws(GraphDecodingError)
    -> Int
  {
    let value = try field(fields, key, at: place)
    guard !Self.isBoolean(value), let number = value as? NSNumber, let integer = value as? Int,
      number.doubleValue == Double(integer)
    else {
      throw GraphDecodingError("\(Self.join(place, key)): expected an integer, found \(Self.describe(value))")
    }
    return integer
  }

  private func string(_ fields: [String: Any], _ key: String, at place: String) throws(GraphDecodingError)
    -> String
  {
    let value = try field(fields, key, at: place)
    guard let text = value as? String else {
      throw GraphDecodingError("\(Self.join(place, key)): expected a string, found \(Self.describe(value))")
    }
    return text
  }

  private func boolean(_ fields: [String: Any], _ key: String, at place: String) throws(GraphDecodingError)
    -> Bool
  {
    let value = try field(fields, key, at: place)
    guard Self.isBoolean(value), let flag = value as? Bool else {
      throw GraphDecodingError(
        "\(Self.join(place, key)): expected true or false, found \(Self.describe(value))")
    }
    return flag
  }

  private func array(_ fields: [String: Any], _ key: String, at place: String) throws(GraphDecodingError)
    -> [Any]
  {
    let value = try field(fields, key, at: place)
    guard let items = value as? [Any] else {
      throw GraphDecodingError("\(Self.join(place, key)): expected an array, found \(Self.describe(value))")
    }
    return items
  }

  private func optionalArray(_ fields: [String: Any], _ key: String) throws(GraphDecodingError) -> [Any]? {
    guard let value = fields[key], !(value is NSNull) else { return nil }
    guard let items = value as? [Any] else {
      throw GraphDecodingError("\(key): expected an array, found \(Self.describe(value))")
    }
    return items
  }

  private static func join(_ place: String, _ key: String) -> String {
    place.isEmpty ? key : "\(place).\(key)"
  }

  private static func isBoolean(_ value: Any) -> Bool {
    guard let number = value as? NSNumber else { return false }
    return String(cString: number.objCType) == "c"
  }

  private static func describe(_ value: Any) -> String {
    switch value {
    case is NSNull: return "null"
    case let text as String:
      let shown = text.count > 40 ? text.prefix(40) + "…" : Substring(text)
      return "the string \"\(shown)\""
    case is [Any]: return "an array"
    case is [String: Any]: return "an object"
    case let number as NSNumber:
      if isBoolean(value) { return number.boolValue ? "true" : "false" }
      return "the number \(number)"
    default: return "a value of type \(type(of: value))"
    }
  }
}
