internal import RetainGraphStorage
internal import RetainGraphSupport

extension GraphStorage {
  /// The canonical text of a cycle made of `members` (see ``CycleSignature``): `object T` per
  /// member, `reference Holder label (ownership) Target` per reference between two members, the
  /// label without what brackets hold (element indices, dictionary keys), sorted.
  func signature(ofMembers members: [Node.ID]) -> CycleSignature {
    let isMember = Set(members)
    var lines = members.map { "object \(displayName($0))" }
    let (offsets, edgeIndices) = allOutgoingEdges()
    for member in members where (0..<nodeCount).contains(member) {
      for position in Int(offsets[member])..<Int(offsets[member + 1]) {
        let edge = edges[Int(edgeIndices[position])]
        guard isMember.contains(Int(edge.to)) else { continue }
        lines.append(
          "reference \(displayName(Int(edge.from))) \(Self.withoutBracketContents(label(edge))) "
            + "(\(edge.ownership)) \(displayName(Int(edge.to)))")
      }
    }
    return CycleSignature(text: lines.sorted().joined(separator: "\n"))
  }

  /// `items[3].owner` → `items[].owner`; `cache["key"]` → `cache[]`.
  static func withoutBracketContents(_ label: String) -> String {
    var kept = ""
    var depth = 0
    for character in label {
      if character == "[" {
        depth += 1
        if depth == 1 { kept.append("[") }
      } else if character == "]" {
        depth -= 1
        if depth == 0 { kept.append("]") }
      } else if depth == 0 {
        kept.append(character)
      }
    }
    return kept
  }
}
