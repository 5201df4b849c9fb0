internal import RetainGraphRuntime

/// The fix for one reference of a cycle's fix plan, as a value: what the developer edits and
/// where. Its `description` is the sentence (`make Interactor.output weak`), which
/// ``Cycle/Break/fix`` prints.
///
/// ```swift
/// switch graph.cycles[0].fixPlan[0].advice {
/// case .weakProperty(let property): print("make \(property) weak")
/// case .weakCapture(.selfObject, let closure?, _): print("[weak self] in \(closure)")
/// default: print(advice)
/// }
/// ```
///
/// New cases may be added in a minor version: a `switch` over the advice needs a `default:`.
public enum FixAdvice: Hashable, Sendable, CustomStringConvertible {
  /// A library's own reference to your object, which you cannot make weak: `holding` says where
  /// (`Subscription.subscriber is OpenCombine's reference to Screen`), `module` is the library's,
  /// `target` the held type's short name, and `wayOut` the library's way to let go of it
  /// (GRDB's `remove(transactionObserver:)`) when the library has one; without it, give the library
  /// a closure capturing `[weak self]`, or end what holds it.
  case libraryReference(holding: String, module: String, target: String, wayOut: String?)
  /// Capture the object weakly in the closure that captures it: the closure by its function when
  /// known (`closure #1 in CartViewModel.init(store:)`), and where the closure is
  /// (`stored in Store.subscribers[0]`, `passed to …`).
  case weakCapture(of: CapturedObject, closure: String?, place: String?)
  /// A stored method reference (`method`, `Screen.refresh()`) holds its object: store a closure
  /// capturing `[weak self]` that makes `call` (`refresh()`) instead; `place` says where it is stored.
  case weakMethodReference(method: String, call: String, place: String)
  /// A closure stored in a property (`storedIn`, `Store.onChange`) holds the object: weaken what it
  /// captures, or remove it when done.
  case weakenStoredClosure(storedIn: String)
  /// An element of a collection (`storedIn`, `Registry.items[2]`) holds the object (`target`, its
  /// type's short name): hold it weakly in a box.
  case weakElement(target: String, storedIn: String)
  /// A stored property (`Interactor.output`): make it `weak`.
  case weakProperty(String)
  /// A fix written whole as one sentence, for a holder with no idiom of its own (a task, a
  /// `DispatchWorkItem`).
  case sentence(String)

  /// What a closure captures, as far as the binary tells: capture names are not in it, so `self`
  /// only when the closure is written in an instance member of the object's own type, otherwise the
  /// object's type.
  public enum CapturedObject: Hashable, Sendable {
    /// The closure's `self`.
    case selfObject
    /// An object of this type (its short name), by whatever name the closure gives it.
    case object(type: String)

    /// The edit: ``capture `[weak self]` `` or ``capture the ChatAppState weakly (`[weak …]`)``.
    var instruction: String {
      switch self {
      case .selfObject: "capture `[weak self]`"
      case .object(let type): "capture the \(type) weakly (`[weak …]` with the name it has there)"
      }
    }
  }

  /// The fix, one sentence.
  public var description: String {
    switch self {
    case .libraryReference(let holding, let module, let target, let wayOut):
      if let wayOut { return "\(holding): \(wayOut)" }
      return "\(holding): give \(module) a closure that captures `[weak self]` instead of the "
        + "\(target) itself, or end what holds it (cancel, invalidate, remove) when done"
    case .weakCapture(let captured, let closure, let place):
      guard let closure else { return "\(captured.instruction) in the closure \(place ?? "")" }
      return "\(captured.instruction) in \(closure)\(place.map { " (\($0))" } ?? "")"
    case .weakMethodReference(let method, let call, let place):
      return "method reference \(method) \(place): store `{ [weak self] in self?.\(call) }` instead"
    case .weakenStoredClosure(let storedIn):
      return "capture weakly what the closure stored in \(storedIn) captures, or remove it when done"
    case .weakElement(let target, let storedIn):
      return "hold the \(target) in \(storedIn) weakly (a box with a `weak var`), or remove it when done"
    case .weakProperty(let property):
      return "make \(property) weak"
    case .sentence(let text):
      return text
    }
  }
}
