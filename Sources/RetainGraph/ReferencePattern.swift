/// A reference to leave out of the walk, named by the declaration it is made through (a type and
/// its stored property) rather than by the text of its label: what LeakCanary's shark calls a
/// `ReferencePattern` (an instance field by class and field name).
///
/// ```swift
/// // Accept a known cycle: every Interactor's `output`, whatever it holds.
/// GraphOptions(ignoredReferences: [.property("output", of: "Interactor")])
/// ```
public struct ReferencePattern: Sendable, Hashable, CustomStringConvertible {
  /// The holder's type, as a pattern: matched against the holder's whole qualified name as the walk
  /// shows it (`App.Interactor`, `App.Box<App.Item>`) or against that name without its module
  /// (`Interactor`); `*` matches any run of characters, nothing else is special (as in
  /// ``GraphOptions/ignoredTypeNames``). A class's superclasses are matched too, when the
  /// superclass has the stored property: `.property("delegate", of: "BaseViewController")` names
  /// the `delegate` every subclass inherits.
  public let holderType: String
  /// The holder's stored property the reference is in (``Edge/property``): `items` matches
  /// `items[3]` and `items[3].owner` too.
  public let property: String
  /// The holder's type, compiled.
  let typePattern: TypeNamePattern

  /// The references an object of a type matching `holderType` holds in its stored property
  /// `property` (its elements and the paths through it included).
  /// - Parameters:
  ///   - property: the stored property's name.
  ///   - holderType: the holder's type, a pattern (`*` for any type).
  /// - Returns: the pattern.
  public static func property(_ property: String, of holderType: String) -> ReferencePattern {
    ReferencePattern(holderType: holderType, property: property)
  }

  private init(holderType: String, property: String) {
    self.holderType = holderType
    self.property = property
    typePattern = TypeNamePattern(holderType)
  }

  /// `Interactor.output`.
  public var description: String { "\(holderType).\(property)" }

  /// Whether a reference stored in `property` of a holder named `holderName` matches.
  func matches(holderName: String, property: String?) -> Bool {
    property == self.property && typePattern.matches(qualifiedName: holderName)
  }

  public static func == (lhs: ReferencePattern, rhs: ReferencePattern) -> Bool {
    lhs.holderType == rhs.holderType && lhs.property == rhs.property
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(holderType)
    hasher.combine(property)
  }
}
