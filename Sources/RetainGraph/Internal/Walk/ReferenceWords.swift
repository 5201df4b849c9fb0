internal import RetainGraphRuntime

/// For the heap census's leak count: the words of a class's instances that hold references, when
/// the walk reads nothing else of them (each stored property a class reference, an optional one,
/// an `Array` of class instances, or a weak or unowned reference). The count reads those words
/// itself instead of walking each such object; every other type (values, closures, existentials,
/// collections read through `Mirror`, custom reflection, key paths, dispatch sources, types with
/// a note) is left to the walk. Made from the same plan the walk reads the object with
/// (`TypePlan`), so both read the same words.
package struct ReferenceWords: Sendable {
  package enum Kind: Sendable, Equatable {
    /// A strong reference, optional or not: the object's address (0: nil).
    case strong
    /// A strong `Array` of class instances: its buffer (`HeapLayout.arrayOfObjects`).
    case objectArray
    /// A weak reference: its side table (0: nil), never counted.
    case weak
    /// An unowned (safe) reference: the object's address, never counted.
    case unowned
  }

  package struct Word: Sendable, Equatable {
    /// The byte offset in the object.
    package var offset: Int
    package var kind: Kind
  }

  /// In the order the walk reads them; `unowned(unsafe)` references (never followed) left out.
  package var words: [Word]
}

extension ObjectGraph {
  /// The words of an instance of the class `type` that hold references, when the walk would read
  /// nothing else of it (see ``ReferenceWords``); nil when the walk must read it.
  /// - Parameter type: a class.
  /// - Returns: the words, or nil.
  package static func referenceWords(ofClass type: any Any.Type) -> ReferenceWords? {
    let plan = TypePlans.plan(for: type)
    guard case .object = plan.shape, !plan.isCustom, !plan.isKeyPath, plan.note == nil,
      !DispatchSourceLayout.isSource(type)
    else { return nil }
    var words: [ReferenceWords.Word] = []
    for field in plan.fieldKinds {
      switch field.kind {
      case .object, .optionalObject: words.append(.init(offset: field.offset, kind: .strong))
      case .objectArray: words.append(.init(offset: field.offset, kind: .objectArray))
      case .reference(.weak): words.append(.init(offset: field.offset, kind: .weak))
      case .reference(.unowned): words.append(.init(offset: field.offset, kind: .unowned))
      case .reference(.unownedUnsafe): continue
      case .other: return nil
      }
    }
    return ReferenceWords(words: words)
  }
}
