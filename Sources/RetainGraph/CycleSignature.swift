/// What identifies a retain cycle from run to run and from any root: the types of its members and
/// the references between them (holder type, reference path without element indices or dictionary
/// keys, ownership, target type), sorted; never addresses.
///
/// The same objects give the same signature whichever of them a graph is walked from, in any
/// process: ``Cycle/signature`` of a walked graph, the heap census's leaked cycles
/// (`LeakReport.LeakedCycle.signature`) and a known-cycles file all use it. Its `description` is a
/// 16-digit hash of ``text``:
/// ```
/// object Child
/// object Parent
/// reference Child parent (strong) Parent
/// reference Parent child (strong) Child
/// ```
/// is `8c1f0d2a9b3e4f57`-like. Objects are named as leak traces name them (short type names,
/// closures by their function), so two types of the same name in different modules give the same
/// lines.
public struct CycleSignature: CustomStringConvertible, Sendable, Hashable, Codable {
  /// The canonical text: one line per object type, then one per reference, sorted.
  public var text: String

  /// Creates a signature from its canonical text.
  public init(text: String) { self.text = text }

  /// FNV-1a, 64 bits, of ``text``, in hexadecimal (16 digits).
  public var description: String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    let digits = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }
}

extension Cycle {
  /// What identifies this cycle from run to run and from any root (see ``CycleSignature``): its
  /// members' types and every reference between two members, whatever its ownership. Made from the
  /// graph each time it is read.
  public var signature: CycleSignature {
    guard let storage = loopEdges.graphStorage else { return CycleSignature(text: "") }
    return storage.signature(ofMembers: members)
  }
}

extension ObjectGraph {
  /// The signature of the objects `members` as one cycle (``Cycle/signature``): for the census,
  /// whose leaked cycle is found by its own count, not by this graph's finder.
  /// - Parameter members: node ids of the graph.
  /// - Returns: their signature.
  package func signature(ofMembers members: [Node.ID]) -> CycleSignature {
    storage.signature(ofMembers: members)
  }
}
