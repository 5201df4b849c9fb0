/// A weak reference to an object, with the names to report it by once it may be gone.
///
/// A class, so that copies of a probe share its one weak reference: the runtime's weak count of the
/// object then tells the probes apart from other weak references (``waitForRelease(_:timeout:options:)``).
final class WeakProbe {
  /// The object, or nil once it was deinitialised.
  weak var object: AnyObject?
  /// The object's type without module qualifiers (`Presenter`).
  let typeName: String

  init(_ object: AnyObject) {
    self.object = object
    self.typeName = String(describing: type(of: object))
  }

  var isAlive: Bool { object != nil }
}

/// Probes that cross task boundaries. A probe only holds a weak reference and a name; it is read
/// behind a lock (``LeakRegistry``) or by one task at a time.
struct SendableProbe: @unchecked Sendable {
  var probe: WeakProbe
}
