internal import RetainGraphSnapshots

// The names the snapshot format gives edge kinds (SnapshotFormat's, in declaration order).

extension Edge.Kind {
  /// Every kind's name in a JSON snapshot, in declaration order.
  static let jsonNames = SnapshotFormat.edgeKinds

  /// The kind's name in a JSON snapshot.
  var jsonName: String {
    switch self {
    case .property: "property"
    case .enumPayload: "enumPayload"
    case .element: "element"
    case .closure: "closure"
    case .singleCapture: "singleCapture"
    case .methodReference: "methodReference"
    case .capture: "capture"
    case .actorIsolation: "actorIsolation"
    case .global: "global"
    case .suspendedFrame: "suspendedFrame"
    }
  }

  /// A kind without an argument, by its JSON name.
  init?(jsonName: String) {
    switch jsonName {
    case "property": self = .property
    case "enumPayload": self = .enumPayload
    case "element": self = .element
    case "closure": self = .closure
    case "singleCapture": self = .singleCapture
    case "global": self = .global
    case "suspendedFrame": self = .suspendedFrame
    default: return nil
    }
  }
}
