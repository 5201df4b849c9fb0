internal import RetainGraphRuntime

extension Walker {
  /// How many ``GraphReflectable`` values deep a description may go when `maxDepth` is not set:
  /// values within values create no node, so `maxNodes` alone would not stop a description that
  /// makes a new value of itself each time it is asked (and each level's label is longer).
  static let customValueNestingLimit = 1_000
  /// How long the path to a ``GraphReflectable`` value may grow (in UTF-8 bytes): a description
  /// that nests through plain values starts its nesting again at each of them, but its path still
  /// grows with each level, and each level costs as much as its path.
  static let customValuePathLimit = 16_384

  /// Walks a ``GraphReflectable`` value (not an object) `nesting` such values below the last
  /// value that was not one. Values within values make no node: the nesting is cut at `maxDepth`
  /// (or ``customValueNestingLimit``) or where the path passes ``customValuePathLimit``, and the
  /// values described in the whole walk at `maxNodes`, so that an endless description ends the
  /// walk, truncated, with a note.
  mutating func walkCustomValue(_ custom: any GraphReflectable, label: PendingLabel, nesting: Int) {
    let type = type(of: custom)
    if !options.ignoredTypeIDs.isEmpty, isIgnored(type) { return }
    customValueCount += 1
    let nestingLimit = options.maxDepth ?? Self.customValueNestingLimit
    let pathLength = label.base.utf8.count + label.tail.utf8.count
    guard nesting < nestingLimit, pathLength <= Self.customValuePathLimit,
      customValueCount <= options.maxNodes
    else {
      isTruncated = true
      let name = TypeNames.qualified(type)
      let text: String
      if nesting >= nestingLimit {
        text =
          "\(name): GraphReflectable values describing values within values were not walked past \(nesting) "
          + "levels; the structure they describe may be endless (raise maxDepth to see further)"
      } else if pathLength > Self.customValuePathLimit {
        text =
          "\(name): GraphReflectable values were not walked where the path to them passes "
          + "\(Self.customValuePathLimit) characters; the structure they describe may be endless"
      } else {
        text =
          "\(name): more than maxNodes (\(options.maxNodes)) values were described by GraphReflectable values; "
          + "the rest were not walked (the structure may be endless; raise maxNodes to see further)"
      }
      note(.truncated, type: name, text)
      return
    }
    walkCustom(custom, prefix: label, nesting: nesting)
  }

  /// Walks what a ``GraphReflectable`` value or object describes: strong children as values
  /// (a child that is itself a ``GraphReflectable`` value one level deeper), weak and unowned ones
  /// as references to their objects.
  mutating func walkCustom(_ custom: any GraphReflectable, prefix: PendingLabel, nesting: Int = 0) {
    var strongChildren: [Work] = []
    for child in custom.graphChildren {
      let label = child.isGlobal ? prefix.global(child.label) : prefix.appending(child.label)
      let unwrapped = Self.unwrapOptionals(child.value)
      let isObject = Metadata.kind(of: type(of: unwrapped)) == .class
      if child.ownership == .strong {
        if !isObject, let value = unwrapped as? any GraphReflectable {
          strongChildren.append(.customValue(value, label: label, nesting: nesting + 1))
        } else {
          strongChildren.append(.value(child.value, label: label))
        }
        continue
      }
      if isObject {
        addReference(borrowing: unwrapped as AnyObject, label: label, ownership: child.ownership)
      }
    }
    push(strongChildren)
  }
}
