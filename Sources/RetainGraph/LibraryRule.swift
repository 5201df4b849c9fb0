/// A library whose code is not yours, as data (LeakCanary's library leak matchers in the same
/// spirit): its modules, and for the references it holds to your objects, its ways out.
///
/// The known ones are ``GraphOptions/knownLibraries``; a test target adds its own through
/// ``GraphOptions/libraries``:
///
/// ```swift
/// let vendor = LibraryRule(
///   name: "VendorKit", modules: ["VendorKit"],
///   wayOuts: [.init(holder: "EventHub", property: "listeners", advice: "call `hub.remove(listener)` when done")])
/// assertNoCycles(screen, options: GraphOptions(libraries: [vendor]))
/// ```
public struct LibraryRule: Sendable, Hashable {
  /// The name users know it by.
  public let name: String
  /// Its modules, as `import` names them.
  public let modules: [String]
  /// How you end the references the library holds to your objects.
  public var wayOuts: [WayOut] = []

  /// How you end a reference the library holds: matched on the holder's type (its name without the
  /// module and the generic arguments) and, when given, the property.
  public struct WayOut: Sendable, Hashable {
    /// The holder's type name, without its module and generic arguments (`TransactionObservation`).
    public let holder: String
    /// The holder's property that holds your object; nil for any.
    public var property: String?
    /// What to do, in the words of the library's API.
    public let advice: String

    /// Creates a way out.
    /// - Parameters:
    ///   - holder: the holder's type name, without its module and generic arguments.
    ///   - property: the holder's property that holds your object (nil for any).
    ///   - advice: what to do, in the words of the library's API.
    public init(holder: String, property: String? = nil, advice: String) {
      self.holder = holder
      self.property = property
      self.advice = advice
    }
  }

  /// Creates a library rule.
  /// - Parameters:
  ///   - name: the name users know it by.
  ///   - modules: its modules, as `import` names them.
  ///   - wayOuts: how you end the references it holds to your objects.
  public init(name: String, modules: [String], wayOuts: [WayOut] = []) {
    self.name = name
    self.modules = modules
    self.wayOuts = wayOuts
  }
}
