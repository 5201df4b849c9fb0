/// The practical limit: a traversal that knows the type, with a visited set.
func typedTraversal(_ root: BenchNode) -> Int {
  var visited = Set<ObjectIdentifier>()
  var stack = [root]
  visited.insert(ObjectIdentifier(root))
  while let node = stack.popLast() {
    func visit(_ other: BenchNode?) {
      guard let other, visited.insert(ObjectIdentifier(other)).inserted else { return }
      stack.append(other)
    }
    visit(node.parent)
    for child in node.children { visit(child) }
    visit(node.next)
    visit(node.previous)
    for other in node.strong { visit(other) }
    visit(node.weakLink)
  }
  return visited.count
}

/// The typed traversal of `[[Leaf]]`: every leaf into a visited set.
func typedNestedTraversal(_ root: NestedRoot) -> Int {
  var visited = Set<ObjectIdentifier>([ObjectIdentifier(root)])
  for group in root.groups { for leaf in group { visited.insert(ObjectIdentifier(leaf)) } }
  return visited.count
}

/// The typed traversal of `[String: [Leaf]]`.
func typedKeyedTraversal(_ root: KeyedRoot) -> Int {
  var visited = Set<ObjectIdentifier>([ObjectIdentifier(root)])
  for group in root.groups.values { for leaf in group { visited.insert(ObjectIdentifier(leaf)) } }
  return visited.count
}

/// A naive Mirror walk: every child of every value, an identity set for objects.
func naiveMirrorWalk(_ root: Any) -> Int {
  var visited = Set<ObjectIdentifier>()
  var stack: [Any] = [root]
  while let value = stack.popLast() {
    let mirror = Mirror(reflecting: value)
    if mirror.displayStyle == .class {
      let object = value as AnyObject
      guard visited.insert(ObjectIdentifier(object)).inserted else { continue }
    }
    var current: Mirror? = mirror
    while let level = current {
      for child in level.children { stack.append(child.value) }
      current = level.superclassMirror
    }
  }
  return visited.count
}
