public import RetainGraph

extension RetainerReport {
  /// One reference to the object.
  public struct Retainer: Sendable, Hashable, Codable {
    /// What holds the reference: an object, a closure, global storage, or a task or queued block.
    public var heldBy: Holder
    /// The path from the holder to the reference (`images[0]`); empty for a global.
    public var label: String
    /// Whether the reference retains.
    public var ownership: Ownership
    /// Whether the holder was seen only as a word of its memory equal to the object's address: its
    /// memory is not read by type (a Core Foundation object), so it may hold the object strongly or
    /// weakly, or merely hold a number equal to the address.
    public var isWordOnly: Bool = false
    /// How the holder holds it (`Edge.kind`): a property, an element, a closure's capture…; nil
    /// for a holder seen only as a word, or one the walk did not reach.
    public var kind: Edge.Kind? = nil
    /// Whether the holder is a closure context (the reference is one of its captures): a closure's,
    /// or the context of the closure a task or queued block runs.
    var isClosureContext = false
  }

  /// What holds a reference to the object.
  public enum Holder: Sendable, Hashable, CustomStringConvertible {
    /// An object, by its short type name (`ImageCache`; a Core Foundation object's, `__NSCFType`).
    case object(typeName: String)
    /// A closure's context, by the closure's name (`closure #1 in Feed.start()`): the reference is one
    /// of its captures.
    case closure(name: String)
    /// Global storage, by its name (`ImageCache.shared`, a global `var`).
    case global(name: String)
    /// A running task or a block Dispatch keeps for queued work (or the context of the closure it
    /// runs), named by what it runs, as ``Origin/runtimeHolder(_:)`` names it: `running task started
    /// in Feed.start() (closure #1 in Feed.start())`.
    case runtimeHolder(name: String)

    /// The holder's name alone: the type's, the closure's, the global's or the task's.
    public var name: String {
      switch self {
      case .object(let name), .closure(let name), .global(let name), .runtimeHolder(let name): name
      }
    }

    /// The holder's name (``name``).
    public var description: String { name }

    /// Whether it is global storage.
    var isGlobal: Bool {
      if case .global = self { true } else { false }
    }

    /// The kind's name in the JSON form (`holderKind`).
    fileprivate var kindName: String {
      switch self {
      case .object: "object"
      case .closure: "closure"
      case .global: "global"
      case .runtimeHolder: "runtimeHolder"
      }
    }
  }
}

extension RetainerReport.Retainer {
  fileprivate enum Key: String, CodingKey {
    case holder, holderKind, label, ownership, isGlobal, isWordOnly, isClosureContext, kind
  }

  /// Reads a retainer: its holder's name (`holder`) and kind (`holderKind`; before it was written, the
  /// kind is read from `isGlobal` and `isClosureContext`), and its kind of reference as the graph's JSON
  /// writes an edge's (`"kind": "capture", "capture": 0` among its fields), or nested as Swift's
  /// synthesised coding wrote it before.
  /// - Parameter decoder: the decoder.
  /// - Throws: `DecodingError` when a field is missing or of another type, or `holderKind` is not a
  ///   holder's kind.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Key.self)
    let name = try container.decode(String.self, forKey: .holder)
    let isGlobal = try container.decode(Bool.self, forKey: .isGlobal)
    isClosureContext = try container.decodeIfPresent(Bool.self, forKey: .isClosureContext) ?? false
    switch try container.decodeIfPresent(String.self, forKey: .holderKind) {
    case "object": heldBy = .object(typeName: name)
    case "closure": heldBy = .closure(name: name)
    case "global": heldBy = .global(name: name)
    case "runtimeHolder": heldBy = .runtimeHolder(name: name)
    case nil:
      heldBy =
        isGlobal ? .global(name: name) : isClosureContext ? .closure(name: name) : .object(typeName: name)
    case let other?:
      throw DecodingError.dataCorruptedError(
        forKey: .holderKind, in: container, debugDescription: "\(other) is not a holder's kind")
    }
    label = try container.decode(String.self, forKey: .label)
    ownership = try container.decode(Ownership.self, forKey: .ownership)
    isWordOnly = try container.decodeIfPresent(Bool.self, forKey: .isWordOnly) ?? false
    if !container.contains(.kind) || (try? container.decodeNil(forKey: .kind)) == true {
      kind = nil
    } else if (try? container.decode(String.self, forKey: .kind)) != nil {
      kind = try Edge.Kind(from: decoder)
    } else {
      kind = try container.decode(Edge.Kind.self, forKey: .kind)
    }
  }

  /// Writes a retainer: the fields a reader before `holderKind` reads (`holder`, `isGlobal`,
  /// `isClosureContext`…), `holderKind`, and its kind's fields among its own as the graph's JSON
  /// writes an edge's.
  /// - Parameter encoder: the encoder.
  /// - Throws: what the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Key.self)
    try container.encode(heldBy.name, forKey: .holder)
    try container.encode(heldBy.kindName, forKey: .holderKind)
    try container.encode(label, forKey: .label)
    try container.encode(ownership, forKey: .ownership)
    try container.encode(heldBy.isGlobal, forKey: .isGlobal)
    try container.encode(isWordOnly, forKey: .isWordOnly)
    try container.encode(isClosureContext, forKey: .isClosureContext)
    try kind?.encode(to: encoder)
  }
}
