internal import Dispatch

/// Reads the one thing the walk needs of a `Dispatch.DispatchSource` (README.md in this target,
/// "Dispatch sources' handlers, for the walk"): its `dispatch_source_t`, an identity to ask the
/// heap census for the handlers it saw set on the source.
package enum DispatchSourceLayout {
  /// `Dispatch.DispatchSource` and the offset of its `__wrapped` (read from its field metadata),
  /// made once per process before any forked walk (`TypePlans.prepare`,
  /// `CensusRuntime.prepareForFork`): a forked child must not take the runtime's locks, so
  /// classes are compared by identity and no type is named or field metadata read to find a
  /// source.
  package static let source: (type: ObjectIdentifier, handleOffset: Int?) = (
    ObjectIdentifier(DispatchSource.self),
    FieldLayout.storedFields(of: DispatchSource.self)?.first { $0.name == "__wrapped" }?.offset
  )

  /// Whether `type` is `Dispatch.DispatchSource` or a subclass (reads only the superclass chain).
  package static func isSource(_ type: any Any.Type) -> Bool {
    guard source.handleOffset != nil else { return false }
    var current: AnyClass? = type as? AnyClass
    while let candidate = current {
      if ObjectIdentifier(candidate) == source.type { return true }
      current = _getSuperclass(candidate)
    }
    return false
  }

  /// The `dispatch_source_t` of the dispatch source at `object` (kept alive by the caller; its
  /// class checked with ``isSource(_:)``), nil when it has none. Never dereferenced.
  package static func handle(ofSourceAt object: UnsafeRawPointer) -> UnsafeRawPointer? {
    guard let offset = source.handleOffset else { return nil }
    return object.load(fromByteOffset: offset, as: UnsafeRawPointer?.self)
  }
}
