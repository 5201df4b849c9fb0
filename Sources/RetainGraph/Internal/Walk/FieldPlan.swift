internal import RetainGraphRuntime

/// One stored property that can hold a reference, and how to read it.
struct FieldPlan {
  enum Action {
    /// A strong reference to a class instance, never nil.
    case object
    /// A strong `Optional` reference to a class instance.
    case optionalObject
    /// A strong `Array` of class instances, read from its buffer.
    case objectArray
    /// A function value: two words, function and context.
    case function
    /// A block (`@convention(block)`, a `DispatchWorkItem`'s): one word, the block, read to the
    /// Swift closure it was made from.
    case block
    /// Any other value: loaded as `type` and walked.
    case value(any Any.Type)
    /// A noncopyable value (`Mutex`, `~Copyable` structs): walked where it is stored, never copied.
    case inPlace(any Any.Type)
    /// A weak, unowned or unowned(unsafe) reference, read without trapping.
    case reference(ReferenceStorage)
    /// A non-strong field whose storage is not recognised: never read.
    case unreadable
    /// A field whose type the runtime hides and that could not be recovered: never read.
    case hidden(String)
  }

  var name: String
  var offset: Int
  /// The field's declared type (used when the fast paths are off).
  var type: any Any.Type
  var action: Action
}

/// What the fast paths need of a field's plan: its offset, and its action when it is a reference
/// (nothing reference-counted, so reading it per field copies no plan).
struct FieldKind {
  enum Kind {
    case object
    case optionalObject
    case objectArray
    case reference(ReferenceStorage)
    /// Any other action: read from the field's plan.
    case other
  }

  let offset: Int
  let kind: Kind

  init(_ field: FieldPlan) {
    offset = field.offset
    switch field.action {
    case .object: kind = .object
    case .optionalObject: kind = .optionalObject
    case .objectArray: kind = .objectArray
    case .reference(let storage): kind = .reference(storage)
    default: kind = .other
    }
  }
}
