internal import Foundation
internal import RetainGraphRuntime
internal import RetainGraphSupport
internal import Synchronization

/// How the walk treats values of one type: computed once per type and cached for the process.
final class TypePlan: @unchecked Sendable {
  enum Shape {
    /// Holds no references worth walking (POD, strings, numbers, dates…).
    case leaf
    /// A class: instances are nodes; `fields` are the stored properties that can hold references.
    case object(fields: [FieldPlan])
    /// A struct walked field by field from its storage.
    case fields([FieldPlan])
    /// Walked through `Mirror`: enums, optionals, tuples, existentials, and collections whose
    /// elements are tail-allocated (field metadata cannot describe them).
    case mirror
    /// An enum with a custom mirror: walked through the runtime's own reflection, which shows the
    /// stored payload whatever the mirror says.
    case storedPayload
    /// A raw-layout cell (`Mutex`'s storage): no stored fields; holds one value of `like` at its
    /// own address.
    case rawLayout(like: any Any.Type)
    /// An `Array` of class instances (not a stored property of an object, which its field plan
    /// reads: an element of another collection, a dictionary's value, a struct's field): its
    /// elements are read from the array's buffer, without `Mirror`.
    case objectArray
    /// A function value: followed to its closure context.
    case function
    /// One word holding a strong reference to a native heap object that may be a task: `Task`,
    /// `UnsafeCurrentTask`, `Builtin.NativeObject`.
    case nativeObject
    /// Values that may hold references the walk cannot read; `note` says why.
    case unreadable
  }

  let shape: Shape
  /// The type describes its references itself (``GraphReflectable``).
  let isCustom: Bool
  let typeName: String
  /// What the walk cannot see in values of this type, as a sentence naming the type: recorded once
  /// per walk when such a value is met.
  let note: String?
  /// The kind of ``note``.
  let noteKind: GraphNote.Kind
  /// The fields of an `.object` or `.fields` shape (empty for the others), and what the fast paths
  /// need of each, in the same order: read per field with no reference counting. The kinds are
  /// memory of the plan's own (freed with it), so that passing them costs no reference counting
  /// either; the walk reads them only while it holds the plan.
  let fields: [FieldPlan]
  let fieldKinds: UnsafeBufferPointer<FieldKind>
  /// A key path class: its objects hold subscript arguments after their fields
  /// (`KeyPathLayout`).
  let isKeyPath: Bool

  init(
    shape: Shape, isCustom: Bool, typeName: String, note: String? = nil,
    noteKind: GraphNote.Kind = .unreadValue, isKeyPath: Bool = false
  ) {
    self.shape = shape
    self.isCustom = isCustom
    self.typeName = typeName
    self.note = note
    self.noteKind = noteKind
    self.isKeyPath = isKeyPath
    switch shape {
    case .object(let fields), .fields(let fields): self.fields = fields
    default: fields = []
    }
    let kinds = UnsafeMutableBufferPointer<FieldKind>.allocate(capacity: fields.count)
    _ = kinds.initialize(from: fields.map(FieldKind.init))
    fieldKinds = UnsafeBufferPointer(kinds)
  }

  deinit { fieldKinds.deallocate() }

  var isLeaf: Bool {
    if case .leaf = shape, !isCustom { return true }
    return false
  }
}

/// The nominal type descriptors of `Task` (any generic arguments) and `UnsafeCurrentTask`.
private let taskDescriptors: Set<UInt> = Set(
  [Task<Void, Never>.self, UnsafeCurrentTask.self].compactMap { (type: any Any.Type) in
    Metadata.descriptor(of: type).map { UInt(bitPattern: $0) }
  })

/// The nominal type descriptor shared by every `ManagedBufferPointer<Header, Element>`.
private let managedBufferPointerDescriptor = UInt(
  bitPattern: Metadata.descriptor(of: ManagedBufferPointer<Int, Int>.self))

/// The nominal type descriptor shared by every `Array<Element>`.
private let arrayDescriptor = UInt(bitPattern: Metadata.descriptor(of: [Int].self))

/// Whether values of `type` are one object reference each: a class, or `AnyObject` (one word, the
/// object, on this platform: no Objective-C).
private func isObjectReference(_ type: any Any.Type) -> Bool {
  Metadata.kind(of: type) == .class || Metadata.pointer(of: type) == Metadata.pointer(of: AnyObject.self)
}

/// Types that hold references only as an implementation detail, never to user objects.
private let knownLeafTypes: Set<ObjectIdentifier> = [
  ObjectIdentifier(String.self), ObjectIdentifier(Substring.self), ObjectIdentifier(Character.self),
  ObjectIdentifier(StaticString.self), ObjectIdentifier(Data.self), ObjectIdentifier(URL.self),
  ObjectIdentifier(Date.self), ObjectIdentifier(UUID.self), ObjectIdentifier(Decimal.self),
  ObjectIdentifier(Locale.self), ObjectIdentifier(TimeZone.self), ObjectIdentifier(Calendar.self),
  ObjectIdentifier(IndexPath.self), ObjectIdentifier(IndexSet.self),
  ObjectIdentifier(CharacterSet.self), ObjectIdentifier(URLComponents.self),
  ObjectIdentifier(DateComponents.self),
]

/// Collections whose element types tell whether they can hold references at all.
protocol ElementTypedCollection {
  static var elementTypes: [any Any.Type] { get }
}
extension Array: ElementTypedCollection {
  static var elementTypes: [any Any.Type] { [Element.self] }
}
extension ContiguousArray: ElementTypedCollection {
  static var elementTypes: [any Any.Type] { [Element.self] }
}
extension ArraySlice: ElementTypedCollection {
  static var elementTypes: [any Any.Type] { [Element.self] }
}
extension Set: ElementTypedCollection {
  static var elementTypes: [any Any.Type] { [Element.self] }
}
extension Dictionary: ElementTypedCollection {
  static var elementTypes: [any Any.Type] { [Key.self, Value.self] }
}
extension Optional: ElementTypedCollection {
  static var elementTypes: [any Any.Type] { [Wrapped.self] }
}

enum TypePlans {
  private static let cache = ForkSafeMutex<[ObjectIdentifier: TypePlan]>([:])

  /// Makes the plans of `root` and of the types its stored fields declare, transitively (class
  /// references, optionals and arrays of them, nested values), up to `limit` types: what a walk
  /// from a value of `root` will most likely need, made without reading any value.
  static func prepare(for root: any Any.Type, limit: Int = 256) {
    // Reading a task needs the concurrency runtime's debug symbols (dlsym, which takes the dynamic
    // loader's lock): looked up now, so that a forked child never does.
    _ = TaskLayout.runtime
    // Finding a dispatch source's handle reads its field metadata (the runtime's locks): done now.
    _ = DispatchSourceLayout.source
    var pending: [any Any.Type] = [root]
    var seen: Set<ObjectIdentifier> = [ObjectIdentifier(root)]
    while let type = pending.popLast(), seen.count <= limit {
      var fields: [FieldPlan] = []
      switch plan(for: type).shape {
      case .object(let found), .fields(let found): fields = found
      case .objectArray:
        if let element = Metadata.firstGenericArgument(of: type),
          seen.insert(ObjectIdentifier(element)).inserted
        {
          pending.append(element)
        }
      default: break
      }
      for field in fields {
        let types = (field.type as? any ElementTypedCollection.Type)?.elementTypes ?? [field.type]
        for next in types where seen.insert(ObjectIdentifier(next)).inserted { pending.append(next) }
      }
    }
  }

  /// Whether the plan for `type` was made already.
  static func isMade(for type: any Any.Type) -> Bool {
    cache.withLock { $0[ObjectIdentifier(type)] != nil }
  }

  /// The plan for `type`, computed on first use.
  static func plan(for type: any Any.Type) -> TypePlan {
    var inProgress: Set<ObjectIdentifier> = []
    return plan(for: type, inProgress: &inProgress)
  }

  private static func plan(for type: any Any.Type, inProgress: inout Set<ObjectIdentifier>) -> TypePlan {
    let key = ObjectIdentifier(type)
    if let plan = cache.withLock({ $0[key] }) { return plan }
    inProgress.insert(key)
    let plan = compute(type, inProgress: &inProgress)
    inProgress.remove(key)
    return cache.withLock { cache in
      if let existing = cache[key] { return existing }
      cache[key] = plan
      return plan
    }
  }

  /// Whether values of `type` can be skipped without looking at them.
  private static func isLeaf(_ type: any Any.Type, inProgress: inout Set<ObjectIdentifier>) -> Bool {
    if inProgress.contains(ObjectIdentifier(type)) { return false }
    return plan(for: type, inProgress: &inProgress).isLeaf
  }

  private static func compute(_ type: any Any.Type, inProgress: inout Set<ObjectIdentifier>) -> TypePlan {
    let name = TypeNames.qualified(type)
    let isCustom = type is any GraphReflectable.Type
    func make(_ shape: TypePlan.Shape, note: String? = nil, kind: GraphNote.Kind = .unreadValue) -> TypePlan {
      TypePlan(shape: shape, isCustom: isCustom, typeName: name, note: note, noteKind: kind)
    }
    let kind = Metadata.kind(of: type)
    if kind == .class {
      if Metadata.isLaidOutByCoreFoundation(qualifiedName: name) {
        return make(
          .object(fields: []),
          note:
            "\(name): a Core Foundation object (its memory is laid out by CF, not by the class's declared "
            + "fields); what it holds is not read")
      }
      let fields = FieldLayout.storedFields(of: type) ?? []
      var note: String?
      if !isCustom, let element = Metadata.managedBufferElement(of: type), !Metadata.isPOD(element) {
        note =
          "\(name): the elements a ManagedBuffer stores after its header are not walked (conform it to "
          + "GraphReflectable to show them)"
      }
      return TypePlan(
        shape: .object(fields: fieldPlans(fields, inProgress: &inProgress)), isCustom: isCustom,
        typeName: name, note: note, noteKind: .unreadElements, isKeyPath: KeyPathLayout.isKeyPathClass(type))
    }
    if isCustom { return make(.mirror) }
    switch kind {
    case .metatype, .heapLocalVariable, .heapGenericLocalVariable:
      return make(.leaf)
    case .existential, .extendedExistential:
      // Only a field's static type is ever an existential; what it holds is walked by its dynamic type.
      return make(.mirror)
    case .function:
      return make(ClosureLayout.isThick(type) ? .function : .leaf)
    case .other(let raw):
      if name == "Builtin.NativeObject" { return make(.nativeObject) }
      if Metadata.isPOD(type) { return make(.leaf) }
      return make(
        .unreadable,
        note:
          "\(name): values of metadata kind 0x\(String(raw, radix: 16)) cannot be read; what they hold is not shown"
      )
    default:
      break
    }
    if kind == .struct, let descriptor = Metadata.descriptor(of: type),
      taskDescriptors.contains(UInt(bitPattern: descriptor))
    {
      // `Task` and `UnsafeCurrentTask` are one `Builtin.NativeObject` field: the task.
      return make(.nativeObject)
    }
    if kind == .struct, Metadata.size(of: type) > 0, FieldLayout.storedFields(of: type)?.isEmpty == true {
      // A struct with storage but no stored fields is a raw-layout cell (`Mutex`'s `_Cell<Value>`),
      // laid out like its only generic argument (not `Atomic<Value>`, laid out like a representation
      // of `Value` given by a conformance). Its value witnesses may say POD whatever it holds.
      if let descriptor = Metadata.descriptor(of: type),
        Metadata.keyArgumentCount(ofDescriptor: descriptor) == 1,
        let like = Metadata.firstGenericArgument(of: type),
        Metadata.size(of: like) == Metadata.size(of: type),
        Metadata.alignment(of: like) == Metadata.alignment(of: type)
      {
        return make(Metadata.isPOD(like) ? .leaf : .rawLayout(like: like))
      }
      if Metadata.isPOD(type) { return make(.leaf) }
      return make(
        .unreadable, note: "\(name): a value with no stored fields holds references the walk cannot read")
    }
    if Metadata.isPOD(type) || knownLeafTypes.contains(ObjectIdentifier(type)) { return make(.leaf) }
    if UInt(bitPattern: Metadata.descriptor(of: type)) == arrayDescriptor,
      Metadata.firstGenericArgument(of: type).map(isObjectReference) == true
    {
      return make(.objectArray)
    }
    if let collection = type as? any ElementTypedCollection.Type {
      let elementsAreLeaves = collection.elementTypes.allSatisfy { isLeaf($0, inProgress: &inProgress) }
      return make(elementsAreLeaves ? .leaf : .mirror)
    }
    if kind == .enum {
      // A custom mirror may hide the payload (or show something else): read what is stored.
      return make(type is any CustomReflectable.Type ? .storedPayload : .mirror)
    }
    guard kind == .struct, let fields = FieldLayout.storedFields(of: type) else { return make(.mirror) }
    // Stored fields are the truth, whatever a custom mirror shows; but a collection that keeps its
    // elements after a ManagedBuffer's header (Deque, OrderedSet, TreeDictionary…) can only be
    // read through its mirror.
    if type is any CustomReflectable.Type, leadsToTailAllocatedElements(fields, depth: 0) {
      return make(.mirror)
    }
    let plans = fieldPlans(fields, inProgress: &inProgress)
    return make(plans.isEmpty ? .leaf : .fields(plans))
  }

  /// Whether strong stored fields lead, through structs and optionals, to a `ManagedBuffer` or a
  /// `ManagedBufferPointer`: storage whose tail-allocated elements field metadata cannot describe.
  private static func leadsToTailAllocatedElements(_ fields: [StoredField], depth: Int) -> Bool {
    guard depth < 8 else { return false }
    for field in fields where field.storage == .strong {
      var type = field.type
      if Metadata.kind(of: type) == .optional, let wrapped = Metadata.firstGenericArgument(of: type) {
        type = wrapped
      }
      switch Metadata.kind(of: type) {
      case .class:
        if Metadata.managedBufferElement(of: type) != nil { return true }
      case .struct where !Metadata.isPOD(type):
        if UInt(bitPattern: Metadata.descriptor(of: type)) == managedBufferPointerDescriptor { return true }
        if let inner = FieldLayout.storedFields(of: type),
          leadsToTailAllocatedElements(inner, depth: depth + 1)
        {
          return true
        }
      default:
        continue
      }
    }
    return false
  }

  private static func fieldPlans(
    _ fields: [StoredField], inProgress: inout Set<ObjectIdentifier>
  ) -> [FieldPlan] {
    fields.compactMap { field in
      let action: FieldPlan.Action
      switch field.storage {
      case .reference(let storage):
        action = .reference(storage)
      case .unknownNonStrong:
        action = .unreadable
      case .hidden(let typeName):
        action = .hidden(typeName)
      case .strong:
        switch Metadata.kind(of: field.type) {
        case .class:
          action = .object
        case .function:
          // Thin and C functions are one word with no context: they capture nothing.
          if BlockLayout.isBlock(field.type) {
            action = .block
          } else {
            guard ClosureLayout.isThick(field.type) else { return nil }
            action = .function
          }
        case .optional
        where Metadata.firstGenericArgument(of: field.type).map { Metadata.kind(of: $0) } == .class:
          action = .optionalObject
        case .struct
        where UInt(bitPattern: Metadata.descriptor(of: field.type)) == arrayDescriptor
          && Metadata.firstGenericArgument(of: field.type).map(isObjectReference) == true:
          action = .objectArray
        default:
          if isLeaf(field.type, inProgress: &inProgress) { return nil }
          let inPlace = field.isHidden || Metadata.isNoncopyable(field.type)
          action = inPlace ? .inPlace(field.type) : .value(field.type)
        }
      }
      return FieldPlan(name: field.name, offset: field.offset, type: field.type, action: action)
    }
  }
}
