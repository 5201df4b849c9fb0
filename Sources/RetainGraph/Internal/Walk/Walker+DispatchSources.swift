internal import RetainGraphRuntime

/// Dispatch sources' handlers, seen through the heap census: a `DispatchSource` keeps its handler
/// blocks in libdispatch's C storage, which the walk cannot read, but the census records each
/// handler block set on a source while it runs (README.md of RetainGraphRuntime, "Dispatch
/// sources").
struct DispatchSourceHandlers {
  /// The running census the handlers are asked from.
  let census: any CensusProvider
  /// Per class: whether it is a dispatch source.
  private var isSource: [ObjectIdentifier: Bool] = [:]

  /// The reader for a walk, when the census is running (nil otherwise: nothing is looked up).
  static func forWalk() -> DispatchSourceHandlers? {
    CensusRegistration.running.map { DispatchSourceHandlers(census: $0) }
  }

  private init(census: any CensusProvider) { self.census = census }

  /// Whether instances of `type` are dispatch sources (cached per type).
  mutating func isSource(_ type: any Any.Type) -> Bool {
    let key = ObjectIdentifier(type)
    if let known = isSource[key] { return known }
    let found = DispatchSourceLayout.isSource(type)
    isSource[key] = found
    return found
  }
}

extension Walker {
  /// Adds, from the object `current` at `base` when it is a dispatch source, an edge to the Swift
  /// closure of each handler the census saw set on it (`event handler (closure)`), which the
  /// source keeps until the handler is replaced or the source cancelled.
  mutating func addDispatchSourceHandlers(of base: UnsafeRawPointer) {
    guard options.includeClosures,
      dispatchSources?.isSource(HeapLayout.dynamicType(ofObject: base)) == true,
      let handle = DispatchSourceLayout.handle(ofSourceAt: base),
      let census = dispatchSources?.census
    else { return }
    census.withDispatchSourceHandlers(of: handle) { handlers in
      for handler in handlers {
        guard let function = BlockLayout.swiftClosure(ofBlock: handler.block) else {
          note(
            .unreadBlock, type: recorder.typeName(of: current),
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
