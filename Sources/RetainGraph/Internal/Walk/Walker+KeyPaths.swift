extension Walker {
  /// Reads the subscript arguments a key path object holds (`\Table[owner]` holds `owner`,
  /// retained): each is walked where it is stored, in the object the walk keeps alive, labelled
  /// `subscript argument <n>`. What cannot be read is a note naming the key path's type.
  mutating func readKeyPathArguments(of object: UnsafeRawPointer, typeName: String) {
    let contents = KeyPathLayout.contents(ofKeyPath: object)
    for reason in contents.unread {
      note(.unreadValue, type: typeName, "\(typeName): \(reason); what they hold is not shown")
    }
    pending.append(
      contentsOf: contents.arguments.enumerated().reversed().map { index, argument in
        Work.inPlace(
          argument.type, at: argument.address,
          label: PendingLabel.empty.appending("subscript argument \(index)"))
      })
  }
}
