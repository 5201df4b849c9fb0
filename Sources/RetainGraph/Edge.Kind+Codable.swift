/// An edge kind's JSON form is the graph's (``ObjectGraph/jsonData()``): its name under `kind`,
/// with `capture` (a capture's number) or `method` (a method reference's method) beside it, as in
/// `{"kind": "capture", "capture": 0}`. Reading also takes the form Swift's synthesised coding wrote
/// before (`{"capture": {"index": 0}}`).
extension Edge.Kind {
  private enum Key: String, CodingKey {
    case kind, capture, method
  }

  /// The former, synthesised form's keys: a case's name, and its argument's label.
  private struct SynthesizedKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  /// Reads a kind in the graph's form, or in the synthesised one written before.
  /// - Parameter decoder: the decoder.
  /// - Throws: `DecodingError` when neither form names a kind.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Key.self)
    if let name = try? container.decode(String.self, forKey: .kind) {
      self = try Self(name: name, in: container)
      return
    }
    let old = try decoder.container(keyedBy: SynthesizedKey.self)
    guard let key = old.allKeys.first, old.allKeys.count == 1 else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "no edge kind"))
    }
    let fields = try old.nestedContainer(keyedBy: SynthesizedKey.self, forKey: key)
    switch key.stringValue {
    case "capture":
      self = .capture(index: try fields.decode(Int.self, forKey: SynthesizedKey(stringValue: "index")))
    case "actorIsolation":
      self = .actorIsolation(index: try fields.decode(Int.self, forKey: SynthesizedKey(stringValue: "index")))
    case "methodReference":
      self = .methodReference(
        method: try fields.decode(String.self, forKey: SynthesizedKey(stringValue: "method")))
    default:
      guard let kind = Self(jsonName: key.stringValue) else {
        throw DecodingError.dataCorruptedError(
          forKey: key, in: old, debugDescription: "unknown edge kind \"\(key.stringValue)\"")
      }
      self = kind
    }
  }

  /// The kind named `name`, with its argument read from `container`.
  private init(name: String, in container: KeyedDecodingContainer<Key>) throws {
    switch name {
    case "capture": self = .capture(index: try container.decode(Int.self, forKey: .capture))
    case "actorIsolation": self = .actorIsolation(index: try container.decode(Int.self, forKey: .capture))
    case "methodReference":
      self = .methodReference(method: try container.decode(String.self, forKey: .method))
    default:
      guard let kind = Self(jsonName: name) else {
        let known = Self.jsonNames.map { "\"\($0)\"" }.joined(separator: ", ")
        throw DecodingError.dataCorruptedError(
          forKey: .kind, in: container, debugDescription: "unknown kind \"\(name)\"; expected one of \(known)"
        )
      }
      self = kind
    }
  }

  /// Writes the kind in the graph's form: `kind`, and `capture` or `method`, in the encoder's keyed
  /// container (a value that holds a kind among its own fields, a census retainer, passes its own
  /// encoder, so that the keys sit beside its fields as they sit beside an edge's in the graph).
  /// - Parameter encoder: the encoder.
  /// - Throws: what the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Key.self)
    try container.encode(jsonName, forKey: .kind)
    if let index = captureIndex { try container.encode(index, forKey: .capture) }
    if case .methodReference(let method) = self { try container.encode(method, forKey: .method) }
  }
}
