internal import Foundation
internal import RetainGraphJSONScanner
internal import RetainGraphSnapshots
internal import RetainGraphStorage
internal import RetainGraphSupport

/// Reads a snapshot into the graph's parts: the text is read and checked by RetainGraphSnapshots
/// (`SnapshotReader`: one pass, every problem with its place, in the order a reader of a parsed tree
/// would find it), and its contents made here into the graph's compact storage, notes and source
/// locations.
struct JSONReader {
  struct Parts {
    var root: Int
    var truncated: Bool
    var storage: GraphStorage
    var dangling: [DanglingReference]
    var notes: [GraphNote]
  }

  let data: Data

  func read() throws(GraphDecodingError) -> Parts {
    do throws(SnapshotReadingError) {
      return try Self.parts(of: SnapshotReader(data: data, isDeclarationKey: Self.isDeclarationKey).read())
    } catch {
      throw GraphDecodingError(error)
    }
  }

  /// Reads a snapshot from the file open at `descriptor`, in a window of `windowSize` bytes (grown
  /// when one record needs more): its text is never in memory whole (a text in UTF-16 or UTF-32
  /// is, to be converted).
  static func read(
    descriptor: Int32, windowSize: Int = 1 << 20, maxWindow: Int = JSONScanner.defaultMaxWindow,
    maxConvertedText: Int = SnapshotReader.maxConvertedText
  ) throws(GraphDecodingError) -> Parts {
    do throws(SnapshotReadingError) {
      return try parts(
        of: SnapshotReader.read(
          descriptor: descriptor, windowSize: windowSize, maxWindow: maxWindow,
          maxConvertedText: maxConvertedText, isDeclarationKey: isDeclarationKey))
    } catch {
      throw GraphDecodingError(error)
    }
  }

  /// The declarations `sourceLocations` may name: `property Type.name` and `closure name`.
  private static func isDeclarationKey(_ key: String) -> Bool { SourceDeclaration(key: key) != nil }

  /// The graph's parts, as `ObjectGraph(nodes:edges:…)` makes them: labels interned in edge order.
  private static func parts(of contents: SnapshotContents) throws(SnapshotReadingError) -> Parts {
    let strings = contents.strings
    var labels = Interner<ReferencePath>()
    let labelIDs = contents.labels.map { raw in
      guard contents.version >= 2 else {
        return labels.intern(ReferencePath(inferringFrom: strings[raw.label]))
      }
      let kind: Edge.Kind =
        switch raw.kind < 0 ? "property" : Edge.Kind.jsonNames[Int(raw.kind)] {
        case "capture": .capture(index: raw.argument)
        case "actorIsolation": .actorIsolation(index: raw.argument)
        case "methodReference": .methodReference(method: strings[Int32(raw.argument)])
        case let name: Edge.Kind(jsonName: name) ?? .property
        }
      var reference = ReferencePath(
        label: strings[raw.label], kind: kind, property: raw.property < 0 ? nil : strings[raw.property])
      reference.function = raw.function < 0 ? nil : strings[raw.function]
      return labels.intern(reference)
    }
    var compact = ChunkedArray<CompactEdge>()
    for edge in contents.edges {
      guard
        let packed = CompactEdge(
          from: Int(edge.from), to: Int(edge.to), label: labelIDs[Int(edge.label)],
          ownership: Ownership(code: edge.ownership))
      else { throw .tooManyLabels() }
      compact.append(packed)
    }
    let storage = GraphStorage(
      typeNames: contents.typeNames, nodeTypes: contents.nodeTypes,
      nodeKinds: contents.nodeKinds.map { Node.Kind.allCases[Int($0)] }, labels: labels.values, edges: compact
    )
    var locations: [SourceDeclaration: CodeLocation] = [:]
    for location in contents.sourceLocations {
      guard let declaration = SourceDeclaration(key: location.declaration) else { continue }
      locations[declaration] = CodeLocation(file: location.file, line: location.line, column: location.column)
    }
    storage.sourceLocations.adopt(locations)
    let notes =
      contents.noteDetails.map { details in
        details.map {
          GraphNote(
            kind: GraphNote.Kind(rawValue: $0.kind), node: $0.node, typeName: $0.typeName,
            description: $0.description)
        }
      } ?? contents.notes.map { GraphNote(kind: .unknown, description: $0) }
    return Parts(
      root: contents.root, truncated: contents.truncated, storage: storage,
      dangling: contents.dangling.map { DanglingReference(holder: $0.holder, label: $0.label) }, notes: notes)
  }
}

extension GraphDecodingError {
  /// The error the snapshot reader found, by the same reason, place and message.
  init(_ error: SnapshotReadingError) {
    let location: Location? =
      switch error.location {
      case .field(let path): .field(path)
      case .byteOffset(let offset): .byteOffset(offset)
      case nil: nil
      }
    self.init(Reason(rawValue: error.reason.rawValue) ?? .other, at: location, error.message)
  }
}

extension GraphDecodingError {
  /// `field: id is not the id of a node`, and what follows (as the snapshot reader words it).
  static func unknownNode(_ field: String, _ id: Int, _ more: String = "") -> Self {
    Self(SnapshotReadingError.unknownNode(field, id, more))
  }

  /// More distinct labels than compact edges can name.
  static func tooManyLabels() -> Self { Self(SnapshotReadingError.tooManyLabels()) }
}
