extension Walker {
  /// Walks a value through `Mirror`: the fallback for shapes whose stored fields do not say where
  /// their references are (enums, tuples, collections, custom mirrors).
  mutating func visitMirror(of value: Any, label: PendingLabel) {
    let mirror = Mirror(reflecting: value)
    var children: [(value: Any, label: PendingLabel)] = []
    if storageReading != nil, [.collection, .set, .dictionary].contains(mirror.displayStyle),
      let word = storageReading?.storageWord(of: value)
    {
      // Its elements are read from its storage: references made until `.leaveStorage` are held there.
      storageReading?.enter(word, holder: current, elementsOnly: false)
      pending.append(.leaveStorage)
    }
    switch mirror.displayStyle {
    case .optional:
      if let child = mirror.children.first { children.append((child.value, label)) }
    case .collection, .set:
      for (index, child) in mirror.children.enumerated() {
        children.append((child.value, label.element(index)))
      }
    case .dictionary:
      for (index, child) in mirror.children.enumerated() {
        let pair = Array(Mirror(reflecting: child.value).children)
        guard pair.count == 2 else { continue }
        let entry = label.entry(Self.describeKey(pair[0].value) ?? "#\(index)")
        children.append((pair[1].value, entry))
        children.append((pair[0].value, entry.appending("key")))
      }
    case .enum:
      let enumLabel = label.enumValue(type(of: value))
      for child in mirror.children {
        children.append((child.value, enumLabel.payload(child.label ?? "payload")))
      }
    default:
      for (index, child) in mirror.children.enumerated() {
        guard var name = child.label else {
          children.append((child.value, label.unnamed(index)))
          continue
        }
        if name.hasPrefix(".") { name.removeFirst() }
        children.append((child.value, label.appending(name)))
      }
    }
    push(children)
  }

  /// A dictionary key as it would be written in a subscript: `"done"`, `3`, `.primary`; nil for
  /// keys with no short spelling.
  private static func describeKey(_ key: Any) -> String? {
    switch key {
    case let text as String: return String(reflecting: text)
    case let text as Substring: return String(reflecting: String(text))
    case let character as Character: return String(reflecting: character)
    case let number as any BinaryInteger: return "\(number)"
    case let flag as Bool: return "\(flag)"
    default:
      let mirror = Mirror(reflecting: key)
      if mirror.displayStyle == .enum, mirror.children.isEmpty { return ".\(key)" }
      return nil
    }
  }
}
