/// How one reference is stored in its holder, structured: one per interned label of a graph. The
/// walk makes these (from a ``PendingLabel``), the label text is built from them here and only
/// here (``text(number:)``), and everything else asks for ``kind`` and the other fields instead of
/// reading the text back.
///
/// A label is the path from the holding object to the held one: stored property names joined by
/// `.` (`state.loading`, `pair.1`), element subscripts (`items[3]`, `handlers["done"]`), and for a
/// closure, where it is stored followed by ` (closure)` (`greeting (closure)`), with
/// ` → capture 0` when the closure's only capture is the referenced object itself; a method
/// reference (`completion = handleResponse`), where it is stored followed by ` (method ` and the
/// method's name (`completion (method UseCase.handleResponse(_:))`). The references a closure
/// context holds are labelled `capture 0`, `capture 1`… A chain of the same enum inside itself
/// (`indirect enum`) names its repeated step once with a count: `list(.node.1 ×4999).node.0`.
///
/// One number per edge is kept apart from the interned value (an element index, or the count of
/// a repeated step), so that a million `items[i]` share one entry; ``number`` holds it instead
/// when it could not be kept apart.
struct ReferencePath: Hashable, Sendable {
  /// What kind of reference this is.
  var kind: Edge.Kind
  /// The holder's stored property the reference is in (`items` for `items[3].owner`); nil inside
  /// a closure context's capture.
  var property: String?
  /// The function of the closure stored at the path, when the walk could name it (``Edge/Kind/closure``
  /// and ``Edge/Kind/singleCapture``).
  var function: String?
  /// The path before the number: `items`, `state`, `list`.
  var path: String
  /// What the number names.
  var numbering: Numbering = .none
  /// The path after the number: `.owner` in `items[3].owner`.
  var tail: String = ""
  /// What the kind adds after the storage path: ` (closure)`, ` (method M.f(_:))`.
  var suffix: String = ""
  /// The number, when it is not kept apart by the edge (-1 when there is none).
  var number: Int32 = -1

  /// What an edge's number names in the text.
  enum Numbering: Hashable, Sendable {
    /// No number.
    case none
    /// An element index: `[3]`.
    case element
    /// How many times `step` repeats: `.node.1.node.1`, or `(.node.1 ×4999)` above three times.
    case repeated(step: String)
  }

  /// Repeats of a step written out in full; more are written with their count.
  static let literalRepeats: Int32 = 3

  private static let closureMarker = " (closure)"
  private static let singleCaptureMarker = " (closure) → capture 0"
  /// After a capture that is the actor the closure runs on: the compiler captures an actor-isolated
  /// closure's actor as its isolation (`(any Actor)?`) beside `self`, and `[weak self]` removes both.
  private static let isolationMarker = " (actor isolation)"

  /// Whether this is the capture of the actor a closure runs on (`capture 0 (actor isolation)`).
  var isActorIsolation: Bool {
    if case .actorIsolation = kind { true } else { false }
  }

  // MARK: - The text

  /// The label of an edge with this reference and `number` (the edge's element index or repeat
  /// count, -1 for none): the one place label text is made.
  func text(number edgeNumber: Int32 = -1) -> String { storagePath(number: edgeNumber) + suffix }

  /// Where in the holder the reference is stored, without what the kind adds: `greeting` for
  /// `greeting (closure) → capture 0`, `items[3]` for `items[3]`.
  func storagePath(number edgeNumber: Int32 = -1) -> String {
    let number = edgeNumber >= 0 ? edgeNumber : self.number
    switch numbering {
    case .none: return path + tail
    case .element: return number < 0 ? path + tail : "\(path)[\(number)]\(tail)"
    case .repeated(let step):
      guard number > Self.literalRepeats else {
        return path + String(repeating: step, count: max(0, Int(number))) + tail
      }
      return "\(path)(\(step) ×\(number))\(tail)"
    }
  }

  // MARK: - Made by the walk

  /// How the walk found a closure stored at a path.
  enum ClosureForm {
    /// Its context is a closure node.
    case context(function: String?)
    /// Its context is its only captured object (``Edge/Kind/singleCapture``).
    case singleCapture(function: String?)
    /// A method reference: its context is the method's object.
    case methodReference(method: String)
  }

  /// The reference at `pending`, stored there directly or, with `closure`, as a closure.
  init(_ pending: PendingLabel, closure: ClosureForm? = nil) {
    path = pending.base
    tail = pending.tail
    property = pending.capture < 0 ? pending.property : nil
    if pending.index >= 0 {
      numbering = pending.step.map { .repeated(step: $0) } ?? .element
    }
    let stored: Edge.Kind =
      if pending.isSuspendedFrame {
        .suspendedFrame
      } else if pending.isGlobal {
        .global
      } else if pending.capture >= 0 {
        pending.isActorIsolation
          ? .actorIsolation(index: Int(pending.capture)) : .capture(index: Int(pending.capture))
      } else if pending.isThroughElement {
        .element
      } else if pending.isThroughPayload {
        .enumPayload
      } else {
        .property
      }
    switch closure {
    case nil:
      kind = stored
      if case .actorIsolation = stored { suffix = Self.isolationMarker }
    case .context(let function):
      kind = pending.isGlobal ? .global : .closure
      self.function = function
      suffix = Self.closureMarker
    case .singleCapture(let function):
      kind = pending.isGlobal ? .global : .singleCapture
      self.function = function
      suffix = Self.singleCaptureMarker
    case .methodReference(let method):
      kind = pending.isGlobal ? .global : .methodReference(method: method)
      suffix = " (method \(method))"
    }
  }

  /// A stored property read straight from an object: `presenter`.
  init(property name: String) {
    kind = .property
    property = name
    path = name
  }

  // MARK: - Made from text (snapshots, edges made by hand)

  /// The reference of an edge given as `label` with its `kind` and `property` (a version 2
  /// snapshot, or an edge made by hand): the text is kept as it is, what the kind adds split off
  /// when the label ends with it. An ``Edge/Kind/element`` reference (the kind, given as data, says
  /// that its path goes through a collection's element) whose label is the property's element
  /// (`items[3]`, `items[3].owner`) is kept as the walk records it: the property, the element's
  /// number and what follows, the exact inverse of ``storagePath(number:)``, so that a fix of the
  /// element edits the property's declaration in a read graph as in a walked one. No other kind's
  /// label is read: a bracket in a property path or a custom child's label is only text.
  init(label: String, kind: Edge.Kind, property: String?) {
    self.kind = kind
    self.property = property
    path = label
    let marker: String? =
      switch kind {
      case .closure: Self.closureMarker
      case .singleCapture: Self.singleCaptureMarker
      case .methodReference(let method): " (method \(method))"
      case .actorIsolation: Self.isolationMarker
      default: nil
      }
    if let marker, label.hasSuffix(marker), label.count > marker.count {
      path = String(label.dropLast(marker.count))
      suffix = marker
    }
    if kind == .element, let property, let element = Self.element(of: property, in: path) {
      (path, numbering, number, tail) = (property, .element, element.number, element.tail)
    }
  }

  /// `property[N]` and what follows it, when `path` is that: the element's number (up to
  /// `Int32.max`, no sign or leading zero, as the walk writes it) and the tail.
  private static func element(of property: String, in path: String) -> (number: Int32, tail: String)? {
    guard path.utf8.starts(with: property.utf8) else { return nil }
    let rest = path.utf8.dropFirst(property.utf8.count)
    guard rest.first == UInt8(ascii: "["), let close = rest.firstIndex(of: UInt8(ascii: "]")) else {
      return nil
    }
    let digits = rest[rest.index(after: rest.startIndex)..<close]
    guard !digits.isEmpty, digits.count == 1 || digits.first != UInt8(ascii: "0"),
      digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
      let number = Int32(String(decoding: digits, as: UTF8.self))
    else { return nil }
    return (number, String(decoding: rest[rest.index(after: close)...], as: UTF8.self))
  }

  /// The reference a label alone describes, read by the grammar above: for version 1 snapshots
  /// only (their edges carry no kind); the only place a label's text is read back. Text cannot tell
  /// a global (its name reads as a property path); no version 1 snapshot holds one (globals and
  /// suspended frames came with version 2).
  init(inferringFrom label: String) {
    let methodMarker = " (method "
    if label == "suspended frame" {
      self.init(label: label, kind: .suspendedFrame, property: nil)
      return
    } else if label.hasSuffix(")"), let range = label.firstRange(of: methodMarker) {
      let method = String(label[range.upperBound...].dropLast())
      self.init(label: label, kind: .methodReference(method: method), property: nil)
    } else if label.hasSuffix(Self.singleCaptureMarker) {
      self.init(label: label, kind: .singleCapture, property: nil)
    } else if label.hasSuffix(Self.closureMarker) {
      self.init(label: label, kind: .closure, property: nil)
    } else if label.hasPrefix("capture "),
      let index = Int(label.dropFirst("capture ".count).prefix(while: \.isNumber))
    {
      let isIsolation = label.hasSuffix(Self.isolationMarker)
      self.init(
        label: label, kind: isIsolation ? .actorIsolation(index: index) : .capture(index: index),
        property: nil)
      return
    } else if label.contains("[") {
      self.init(label: label, kind: .element, property: nil)
    } else {
      self.init(label: label, kind: .property, property: nil)
    }
    let name = path.prefix { $0 != "." && $0 != "[" && $0 != " " }
    property = name.isEmpty ? nil : String(name)
  }
}

/// A label on its way to an edge: a path, with one number kept apart (an element index appended
/// as `[index]`, or the count of a repeated step), and what the path went through. Keeping the
/// number apart lets a million `items[i]` labels share one interned `items`, and a chain of an
/// indirect enum share one `list(.node.1 ×n).node.0`.
struct PendingLabel {
  /// The path before the number.
  var base: String
  /// The number kept apart (≥ 0), or -1.
  var index: Int32 = -1
  /// The path after the number.
  var tail: String = ""
  /// The repeated step the number counts; nil when the number is an element index.
  var step: String?
  /// The first name of the path: the holder's stored property.
  var property: String?
  /// The capture the path starts at, in a closure context; -1 otherwise.
  var capture: Int32 = -1
  /// The enum type whose nesting the path counts, and whether the count started.
  private var anchor: ObjectIdentifier?
  private var flags: UInt8 = 0

  private static let elementFlag: UInt8 = 1
  private static let payloadFlag: UInt8 = 2
  private static let globalFlag: UInt8 = 4
  private static let frameFlag: UInt8 = 8
  private static let isolationFlag: UInt8 = 16

  static let empty = PendingLabel(base: "")

  init(base: String) { self.base = base }

  /// The label of a closure context's `index`th capture: `capture 2`.
  static func capture(_ index: Int) -> PendingLabel {
    var label = PendingLabel(base: "capture \(index)")
    label.capture = Int32(truncatingIfNeeded: index)
    return label
  }

  /// The label of a closure context's `index`th capture when it is the actor the closure runs on:
  /// `capture 0 (actor isolation)`.
  static func isolationCapture(_ index: Int) -> PendingLabel {
    var label = capture(index)
    label.flags |= isolationFlag
    return label
  }

  var isThroughElement: Bool { flags & Self.elementFlag != 0 }
  var isThroughPayload: Bool { flags & Self.payloadFlag != 0 }
  var isGlobal: Bool { flags & Self.globalFlag != 0 }
  var isSuspendedFrame: Bool { flags & Self.frameFlag != 0 }
  var isActorIsolation: Bool { flags & Self.isolationFlag != 0 }

  /// The label of a reference found in a suspended task's frames: `suspended frame`.
  static let suspendedFrame = {
    var label = PendingLabel(base: "suspended frame")
    label.flags |= frameFlag
    return label
  }()

  /// The label's text (for notes and filters; edges get theirs from ``ReferencePath``).
  var text: String { ReferencePath(self).text(number: index) }

  /// The path so far as one string, the number written in, no longer counting an enum's nesting.
  private var collapsed: PendingLabel {
    guard index >= 0 || !tail.isEmpty || anchor != nil else { return self }
    var label = self
    label.base = text
    label.index = -1
    label.tail = ""
    label.step = nil
    label.anchor = nil
    return label
  }

  /// The label of a component below this one: `state.loading`, `items[3].owner`.
  func appending(_ name: String) -> PendingLabel {
    var label = self
    if base.isEmpty && tail.isEmpty && index < 0 {
      if capture < 0 { label.property = name }
      if anchor == nil { label.base = name } else { label.tail = name }
    } else if index >= 0 || anchor != nil {
      label.tail += "." + name
    } else {
      label.base += "." + name
    }
    return label
  }

  /// The label of an enum case's payload below this one: `state.loading`.
  func payload(_ name: String) -> PendingLabel {
    var label = appending(name)
    label.flags |= Self.payloadFlag
    return label
  }

  /// The label of a global variable named `name` (a root of the census).
  func global(_ name: String) -> PendingLabel {
    var label = appending(name)
    label.flags |= Self.globalFlag
    return label
  }

  /// The label of an element below this one: `items[3]`, `grid[1][2]`.
  func element(_ index: Int) -> PendingLabel {
    var label = collapsed
    label.index = Int32(truncatingIfNeeded: index)
    label.flags |= Self.elementFlag
    return label
  }

  /// The label of a component that has no name, shown as a subscript: `value.[2]`.
  func unnamed(_ index: Int) -> PendingLabel {
    var label = appending("[\(index)]")
    if property == nil { label.property = nil }
    label.flags |= Self.elementFlag
    return label
  }

  /// The label of a dictionary entry below this one: `handlers["done"]`.
  func entry(_ key: String) -> PendingLabel {
    var label = collapsed
    label.base += "[\(key)]"
    label.flags |= Self.elementFlag
    return label
  }

  /// The label of a value of the enum `type` found at this label: a value of the same enum met
  /// again below the previous one, by the same step, counts that step instead of writing it again.
  func enumValue(_ type: any Any.Type) -> PendingLabel {
    let key = ObjectIdentifier(type)
    var label = self
    if anchor == key, let step, index >= 0, tail == step {
      label.index += 1
      label.tail = ""
      return label
    }
    if anchor == key, step == nil, index < 0, !tail.isEmpty {
      label.step = tail
      label.index = 1
      label.tail = ""
      return label
    }
    // A new anchor: the path so far is written out.
    label = collapsed
    label.anchor = key
    return label
  }
}
