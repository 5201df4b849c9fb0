internal import Dispatch

/// Dispatch sources' handlers, seen through the heap census: a `DispatchSource` keeps its handler
/// blocks in libdispatch's C storage, which the walk cannot read, but the census records each
/// handler block set on a source while it runs (README.md in Internal/Runtime, "Dispatch
/// sources").
struct DispatchSourceHandlers {
  /// The running census the handlers are asked from.
  let census: any CensusProvider
  /// Per class: the offset of its `dispatch_source_t` (`DispatchSource.__wrapped`), or nil when
  /// the class is not a dispatch source.
  private var handleOffsets: [ObjectIdentifier: Int?] = [:]

  /// `Dispatch.DispatchSource` and the offset of its `__wrapped` (read from its field metadata),
  /// made once per process before any forked walk (`TypePlans.prepare`): a forked child must not
  /// take the runtime's locks, so the walk compares classes by identity and never names a type
  /// or reads field metadata to find a source.
  static let source: (type: ObjectIdentifier, handleOffset: Int?) = (
    ObjectIdentifier(DispatchSource.self),
    FieldLayout.storedFields(of: DispatchSource.self)?.first { $0.name == "__wrapped" }?.offset
  )

  /// The reader for a walk, when the census is running (nil otherwise: nothing is looked up).
  static func forWalk() -> DispatchSourceHandlers? {
    CensusRegistration.running.map { DispatchSourceHandlers(census: $0) }
  }

  private init(census: any CensusProvider) { self.census = census }

  /// The offset of the source handle in instances of `type` when it is `Dispatch.DispatchSource`
  /// (or a subclass), else nil. Reads only class metadata (the superclass chain).
  mutating func handleOffset(of type: any Any.Type) -> Int? {
    let key = ObjectIdentifier(type)
    if let known = handleOffsets[key] { return known }
    var offset: Int?
    var current: AnyClass? = type as? AnyClass
    while let candidate = current {
      if ObjectIdentifier(candidate) == Self.source.type {
        offset = Self.source.handleOffset
        break
      }
      current = _getSuperclass(candidate)
    }
    handleOffsets[key] = offset
    return offset
  }
}

extension Walker {
  /// Adds, from the object `current` at `base` when it is a dispatch source, an edge to the Swift
  /// closure of each handler the census saw set on it (`event handler (closure)`), which the
  /// source keeps until the handler is replaced or the source cancelled.
  mutating func addDispatchSourceHandlers(of base: UnsafeRawPointer) {
    guard options.includeClosures,
      let offset = dispatchSources?.handleOffset(of: HeapLayout.dynamicType(ofObject: base)),
      let handle = base.load(fromByteOffset: offset, as: UnsafeRawPointer?.self),
      let census = dispatchSources?.census
    else { return }
    census.withDispatchSourceHandlers(of: handle) { handlers in
      for handler in handlers {
        guard let function = BlockLayout.swiftClosure(ofBlock: handler.block) else {
          note(
            "\(recorder.typeName(of: current)): a \(handler.role) block not made from a Swift closure was not read; what it holds is not shown"
          )
          continue
        }
        guard function.context != nil else { continue }
        addClosure(function, label: PendingLabel.empty.appending(handler.role))
      }
    }
  }
}
