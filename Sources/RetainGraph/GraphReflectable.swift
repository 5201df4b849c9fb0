/// A type that describes the references it holds itself, instead of its stored properties.
///
/// Conform when the stored properties do not tell the truth: a wrapper that keeps an object in
/// unsafe storage, a type that retains something through a pointer. RetainGraph consults
/// ``graphChildren`` before looking at the stored properties, for classes and value types alike.
///
/// ```swift
/// final class Box: GraphReflectable {
///   private var storage: UnsafeMutableRawPointer   // retains `Model` manually
///   var graphChildren: [GraphChild] { [.strong("model", model)] }
/// }
/// ```
public protocol GraphReflectable {
  /// The references this value holds, each with a label and its ownership.
  var graphChildren: [GraphChild] { get }
}

/// One reference reported by a ``GraphReflectable`` type.
public struct GraphChild {
  /// The path from the holder to the reference, as it appears in edge labels.
  public var label: String
  /// The referenced value: an object, or a value that holds references (walked further).
  public var value: Any
  /// Whether the reference retains its target.
  public var ownership: Ownership
  /// Whether the child is a global or static variable named by ``label`` (its edges are
  /// ``Edge/Kind/global``): the heap census's roots.
  package var isGlobal = false

  /// Creates a child reference.
  public init(label: String, value: Any, ownership: Ownership) {
    self.label = label
    self.value = value
    self.ownership = ownership
  }

  /// A strong reference.
  public static func strong(_ label: String, _ value: Any) -> GraphChild {
    GraphChild(label: label, value: value, ownership: .strong)
  }

  /// A global or static variable's reference (the heap census's roots).
  package static func global(_ name: String, _ value: Any, ownership: Ownership = .strong) -> GraphChild {
    var child = GraphChild(label: name, value: value, ownership: ownership)
    child.isGlobal = true
    return child
  }

  /// A weak reference (pass the object it points to now, or nil).
  public static func weak(_ label: String, _ value: AnyObject?) -> GraphChild {
    GraphChild(label: label, value: value as Any, ownership: .weak)
  }

  /// An unowned reference.
  public static func unowned(_ label: String, _ value: AnyObject) -> GraphChild {
    GraphChild(label: label, value: value, ownership: .unowned)
  }
}
