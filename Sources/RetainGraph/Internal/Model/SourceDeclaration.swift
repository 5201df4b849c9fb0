internal import RetainGraphRuntime
internal import RetainGraphSupport
internal import Synchronization

/// The declaration a fix edits, by the names a graph keeps: a stored property of a type, or a
/// closure by its function's name. A graph's breaks look their ``CodeLocation`` up through it.
enum SourceDeclaration: Sendable, Hashable {
  /// The stored property `name` of the type `type` (qualified, as a node's type name is).
  case storedProperty(type: String, name: String)
  /// The closure whose function the walk names `function` (`closure #1 in App.Screen.init()`).
  case closure(function: String)

  /// The key a snapshot's `sourceLocations` names it by: `property App.Interactor.output`,
  /// `closure closure #1 in App.Screen.init()`.
  var key: String {
    switch self {
    case .storedProperty(let type, let name): "property \(type).\(name)"
    case .closure(let function): "closure \(function)"
    }
  }

  /// The declaration a snapshot's key names; nil for a key of neither form.
  init?(key: String) {
    if key.hasPrefix("closure "), key.count > 8 {
      self = .closure(function: String(key.dropFirst(8)))
    } else if key.hasPrefix("property "), let dot = key.lastIndex(of: "."),
      dot > key.index(key.startIndex, offsetBy: 9), key.index(after: dot) < key.endIndex
    {
      let type = key[key.index(key.startIndex, offsetBy: 9)..<dot]
      self = .storedProperty(type: String(type), name: String(key[key.index(after: dot)...]))
    } else {
      return nil
    }
  }
}

/// Where a graph's declarations are: looked up in the loaded images' debug information when first
/// asked for (a graph walked here, or made of nodes and edges), or given by a snapshot (a graph read
/// from JSON, made by another binary: only what the file says).
final class SourceLocationTable: Sendable {
  /// A snapshot's locations, once adopted: then the only ones this graph has.
  private let adopted = Mutex<[SourceDeclaration: CodeLocation]?>(nil)
  /// What the loaded images' debug information says, looked up once per process for every graph
  /// (the images and their source files do not change while it runs).
  /// Fork-safe: a forked child may describe its graph while another thread of the parent held it.
  private static let lookedUp = ForkSafeMutex<[SourceDeclaration: CodeLocation?]>([:])

  /// The location of `declaration`: the snapshot's, or the debug information's, looked up once.
  func location(of declaration: SourceDeclaration) -> CodeLocation? {
    if let adopted = adopted.withLock({ $0 }) { return adopted[declaration] }
    if let cached = Self.lookedUp.withLock({ $0[declaration] }) { return cached }
    let found: SourceDeclarations.Location?
    switch declaration {
    case .storedProperty(let type, let name):
      found =
        SourceDeclarations.storedProperty(name, ofType: type) ?? Self.inheritedProperty(name, ofType: type)
    case .closure(let function): found = SourceDeclarations.closure(named: function)
    }
    let location = found.map {
      CodeLocation(file: SourceDeclarations.packageRelative($0.file), line: $0.line, column: $0.column)
    }
    Self.lookedUp.withLock { $0[declaration] = .some(location) }
    return location
  }

  /// Uses only `locations` (a snapshot's), never the images.
  func adopt(_ locations: [SourceDeclaration: CodeLocation]) {
    adopted.withLock { $0 = locations }
  }

  /// The declaration of the stored property `name` in a superclass of the class named `type`, the
  /// nearest first: a subclass's object holds its superclasses' stored properties. Only for a class
  /// the runtime finds by its name (`_typeByName`: a type declared at the top level of its module);
  /// nil otherwise.
  private static func inheritedProperty(_ name: String, ofType type: String) -> SourceDeclarations.Location? {
    guard let found = _typeByName(type) as? AnyClass else { return nil }
    var superclass: AnyClass? = _getSuperclass(found)
    for _ in 0..<32 {
      guard let current = superclass else { return nil }
      if let location = SourceDeclarations.storedProperty(name, ofType: TypeNames.qualified(current)) {
        return location
      }
      superclass = _getSuperclass(current)
    }
    return nil
  }
}
