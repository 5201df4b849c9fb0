internal import RetainGraphRuntime

extension Walker {
  /// Reads the subscript arguments a key path object holds (`\Table[owner]` holds `owner`,
  /// retained): each argument's words are compared with the graph's objects once every node is
  /// known, and one that equals a node is a strong edge `subscript argument <n>`. The words are
  /// never dereferenced: the argument types come from the witnesses' symbols, and an optimised
  /// build may give index types whose equality and hashing compile to the same code one witness
  /// (`KeyPathLayout`), so the named type is not proof of what the words are. What cannot be read
  /// is a note naming the key path's type.
  mutating func readKeyPathArguments(of object: UnsafeRawPointer, typeName: String) {
    let contents = KeyPathLayout.contents(ofKeyPath: object)
    for reason in contents.unread {
      note(.unreadValue, type: typeName, "\(typeName): \(reason); what they hold is not shown")
    }
    for (index, argument) in contents.arguments.enumerated() {
      let label = PendingLabel.empty.appending("subscript argument \(index)")
      var seen: Set<UInt> = []
      for word in KeyPathLayout.words(of: argument) where word != 0 && seen.insert(word).inserted {
        keyPathWords.append((current, label, word))
      }
    }
  }
}
