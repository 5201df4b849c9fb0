extension ReferencePath {
  /// The bytes ``GraphTransfer`` writes for this label.
  var transferSize: Int {
    func size(_ string: String?) -> Int { string.map { 4 + $0.utf8.count } ?? 0 }
    var total = 3 + 8 + size(path) + size(tail) + size(suffix) + size(property) + size(function)
    if case .repeated(let step) = numbering { total += size(step) }
    if case .methodReference(let method) = kind { total += size(method) }
    return total
  }
}

extension Edge.Kind {
  /// The kind's code in ``GraphTransfer``'s labels (and the census's leak report).
  package var transferCode: UInt8 {
    switch self {
    case .property: 0
    case .enumPayload: 1
    case .element: 2
    case .closure: 3
    case .singleCapture: 4
    case .methodReference: 5
    case .capture: 6
    case .global: 7
    case .suspendedFrame: 8
    case .actorIsolation: 9
    }
  }

  /// The capture's index, for a capture of either kind.
  package var captureIndex: Int? {
    switch self {
    case .capture(let index), .actorIsolation(let index): index
    default: nil
    }
  }

  /// A kind without an argument, by its code.
  package init?(transferCode: UInt8) {
    switch transferCode {
    case 0: self = .property
    case 1: self = .enumPayload
    case 2: self = .element
    case 3: self = .closure
    case 4: self = .singleCapture
    case 7: self = .global
    case 8: self = .suspendedFrame
    default: return nil
    }
  }
}

extension Node.Kind {
  var transferCode: UInt8 {
    switch self {
    case .object: 0
    case .closure: 1
    case .value: 2
    case .task: 3
    }
  }

  init?(transferCode: UInt8) {
    switch transferCode {
    case 0: self = .object
    case 1: self = .closure
    case 2: self = .value
    case 3: self = .task
    default: return nil
    }
  }
}
