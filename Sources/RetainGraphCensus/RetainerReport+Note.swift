extension RetainerReport {
  /// Something a retainer search could not tell for sure, as a value; its `description` is the
  /// sentence the report prints after `Note: `.
  public enum Note: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A global that is not a reference (an `Int`, say; named with its type, `counter (a Swift.Int)`)
    /// holds a word equal to the object's address: it may be a number, not a reference.
    case wordInGlobal(String)
    /// A holder marked as seen only as a word is a Core Foundation object, whose memory the walk
    /// does not read by type.
    case coreFoundationHolders
    /// The census's walk was cut short by its node limit.
    case walkCut
    /// The walk from the census's objects did not reach the object.
    case notReached

    public var description: String {
      switch self {
      case .wordInGlobal(let global):
        "\(global) holds a word equal to its address (it may be a number, not a reference)"
      case .coreFoundationHolders:
        "a holder marked (a word of its memory) is a Core Foundation object, which the walk does not read by "
          + "type: one of its words equals the object's address (or its side table's), so it may hold the "
          + "object, strongly or weakly"
      case .walkCut: "the census walk was cut short by its node limit"
      case .notReached: "the walk did not reach it"
      }
    }
  }
}
