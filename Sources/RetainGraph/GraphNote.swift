/// Something the walk did not see: a limit that cut it, or a part of an object it could not read
/// (a field the runtime hides, a `ManagedBuffer`'s elements, a closure context whose layout it does
/// not know). Its ``description`` is the sentence a report prints (`note: …`).
///
/// A verdict is only as good as what the walk saw: see ``ObjectGraph/isComplete`` for which notes
/// make a graph incomplete and which are a library's own storage.
public struct GraphNote: Sendable, Hashable, CustomStringConvertible {
  /// What kind of thing was not seen.
  public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// A limit (``GraphOptions/maxNodes``, ``GraphOptions/maxDepth``) stopped the walk: what lies past
    /// the cut was not seen.
    public static let truncated = Kind(rawValue: "truncated")
    /// A stored field (a reference whose storage is not recognised, a weak reference the runtime
    /// cannot read there) was not read.
    public static let unreadField = Kind(rawValue: "unreadField")
    /// A value of a type the runtime hides from reflection was not read.
    public static let hiddenType = Kind(rawValue: "hiddenType")
    /// The elements a `ManagedBuffer` subclass stores after its header were not read.
    public static let unreadElements = Kind(rawValue: "unreadElements")
    /// A closure context whose layout the walk does not recognise: its captures were not read.
    public static let unrecognisedClosure = Kind(rawValue: "unrecognisedClosure")
    /// A block not made from a Swift closure was not read.
    public static let unreadBlock = Kind(rawValue: "unreadBlock")
    /// A task (running during the walk, or of an unknown layout) was not read.
    public static let unreadTask = Kind(rawValue: "unreadTask")
    /// A value of a shape the walk cannot read (an existential it cannot open, a Core Foundation
    /// object, a noncopyable value of an unsupported shape…).
    public static let unreadValue = Kind(rawValue: "unreadValue")
    /// A note read from a file that did not say its kind (written before notes had kinds).
    public static let unknown = Kind(rawValue: "unknown")
    /// Closures and functions were not named from the binaries' symbol tables: this build has no
    /// reader of its binary images (the package trait `BinaryReaders` is off, as a platform without
    /// one of its own gets), so a closure is named after where it is stored (`closure at
    /// Holder.completion`) and a method reference is shown as the closure. Nothing is missed.
    public static let unnamedFunctions = Kind(rawValue: "unnamedFunctions")
    /// Which words of a suspended task's frames are dead was not read (no reader of the machine
    /// code and debug information in this build: the package trait `BinaryReaders` is off): every
    /// word of a frame that equals an object counts as a reference. Nothing is missed, but a stale
    /// word (a variable whose scope ended) can show a reference, and a cycle, that is not there.
    public static let conservativeFrames = Kind(rawValue: "conservativeFrames")

    /// Whether a note of this kind can hide a reference (a cut, a part not read), and so makes a
    /// graph incomplete (``ObjectGraph/isComplete``). False for what a build without binary readers
    /// notes: names not read (``unnamedFunctions``) and frames read conservatively
    /// (``conservativeFrames``), which miss no reference.
    public var canHideReferences: Bool { self != .unnamedFunctions && self != .conservativeFrames }
  }

  /// What kind of thing was not seen.
  public let kind: Kind
  /// The node whose part was not read (the object holding the field, the buffer, the closure
  /// context), or where the walk was cut; nil when the note was read from a file that did not say.
  ///
  /// A note is made once per holder type: every node of this node's type holds the same unread part.
  public let node: Node.ID?
  /// The type of what was not read: the hidden value's type, the buffer's class, the closure
  /// context's function; empty when not known.
  public let typeName: String
  /// The sentence naming what was not seen and where.
  public let description: String

  /// Creates a note.
  /// - Parameters:
  ///   - kind: what kind of thing was not seen.
  ///   - node: the node whose part was not read, if known.
  ///   - typeName: the type of what was not read, or `""`.
  ///   - description: the sentence.
  public init(kind: Kind, node: Node.ID? = nil, typeName: String = "", description: String) {
    self.kind = kind
    self.node = node
    self.typeName = typeName
    self.description = description
  }
}
