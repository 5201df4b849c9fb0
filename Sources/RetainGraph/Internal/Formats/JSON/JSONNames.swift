internal import Foundation
internal import RetainGraphJSONScanner

// The records the snapshot reader collects, and the names the format gives node kinds, ownerships
// and edge kinds. (Reading one field's value is the scanner's: JSONScanner+Fields.swift.)

/// A kind of record array a document collects (``JSONDocument/NodeRecords`` and the others).
protocol JSONRecords { init() }
extension JSONDocument.NodeRecords: JSONRecords {}
extension JSONDocument.EdgeRecords: JSONRecords {}
extension JSONDocument.OptionalRecords: JSONRecords {}

extension Node.Kind {
  init?(json bytes: UnsafeBufferPointer<UInt8>) {
    if bytes.equals("object") {
      self = .object
    } else if bytes.equals("closure") {
      self = .closure
    } else if bytes.equals("value") {
      self = .value
    } else if bytes.equals("task") {
      self = .task
    } else {
      return nil
    }
  }
}

extension Ownership {
  init?(json bytes: UnsafeBufferPointer<UInt8>) {
    if bytes.equals("strong") {
      self = .strong
    } else if bytes.equals("weak") {
      self = .weak
    } else if bytes.equals("unowned") {
      self = .unowned
    } else if bytes.equals("unowned(unsafe)") {
      self = .unownedUnsafe
    } else {
      return nil
    }
  }
}

extension Edge.Kind {
  /// Every kind's name in a JSON snapshot, in declaration order.
  static let jsonNames = [
    "property", "enumPayload", "element", "closure", "singleCapture", "methodReference", "capture", "global",
    "suspendedFrame", "actorIsolation",
  ]

  private static let jsonNameBytes: [[UInt8]] = jsonNames.map { Array($0.utf8) }

  /// The index in ``jsonNames`` of the kind named by `bytes`.
  static func jsonIndex(of bytes: UnsafeBufferPointer<UInt8>) -> Int8? {
    for (index, name) in jsonNameBytes.enumerated() where name.elementsEqual(bytes) { return Int8(index) }
    return nil
  }

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
