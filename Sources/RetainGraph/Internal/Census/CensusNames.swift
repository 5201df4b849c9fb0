internal import RetainGraphRuntime

/// The names the heap census (`RetainGraphCensus`) gives what it finds, as the walk names them:
/// types by `TypeNames`, functions and closures by `Advice`.
package enum CensusNames {
  /// The qualified name of the type of the objects with this metadata: the class's name, or
  /// `(closure context)` / `(box)` for the runtime's own heap objects.
  package static func typeName(metadata: UnsafeRawPointer) -> String {
    switch Metadata.kind(of: Metadata.type(at: metadata)) {
    case .class: return TypeNames.qualified(Metadata.type(at: metadata))
    case .heapLocalVariable: return "(closure context)"
    case .heapGenericLocalVariable: return "(box)"
    default: return "(heap object)"
    }
  }

  /// The short type name of a class whose instances' memory Core Foundation lays out (the walk
  /// does not read them by type); nil for any other class.
  package static func coreFoundationTypeName(metadata: UnsafeRawPointer) -> String? {
    guard CensusRuntime.isClass(metadata: metadata) else { return nil }
    let name = TypeNames.qualified(Metadata.type(at: metadata))
    return Metadata.isLaidOutByCoreFoundation(qualifiedName: name) ? TypeNames.short(name) : nil
  }

  /// `App.ImageCache` → `ImageCache`.
  package static func shortName(_ qualified: String) -> String { TypeNames.short(qualified) }
  /// A function's name as a Swift developer writes it: `closure #1 in App.Feed.start() -> ()` (or
  /// `closure #1 () async -> () in App.Feed.start() -> ()`) → `closure #1 in Feed.start()`;
  /// `App.Feed.start() -> ()` → `Feed.start()`.
  package static func readableFunctionName(_ symbol: String) -> String {
    let symbol = SymbolNames.simplify(symbol)
    let closure = Advice.closureName(symbol)
    if closure != symbol { return closure }
    return Advice.withoutModule(Advice.functionName(Substring(symbol)))
  }
}
