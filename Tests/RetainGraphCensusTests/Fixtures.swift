import Foundation

/// A photo held by the image cache.
final class CensusImage {
  let name: String
  init(name: String) { self.name = name }
}

/// A singleton cache that keeps every image it is given: survivors are named by `shared`.
final class CensusImageCache: @unchecked Sendable {
  static let shared = CensusImageCache()
  private let lock = NSLock()
  var images: [CensusImage] = []

  func store(_ image: CensusImage) {
    lock.lock()
    images.append(image)
    lock.unlock()
  }

  func removeAll() {
    lock.lock()
    images.removeAll()
    lock.unlock()
  }
}

/// A presenter registered with a global registry.
final class CensusPresenter {}

/// A registry reached through a global `var`.
final class CensusRegistry: @unchecked Sendable {
  var presenters: [CensusPresenter] = []
}

nonisolated(unsafe) var censusRegistry = CensusRegistry()

/// A scenario that leaks one `CensusLeakyItem` per run into a log nobody clears.
final class CensusLeakyItem {}
final class CensusEventLog: @unchecked Sendable {
  static let shared = CensusEventLog()
  var items: [CensusLeakyItem] = []
}

/// A scenario that allocates and releases: nothing grows.
final class CensusTransient {
  var next: CensusTransient?
}

/// An observer registered with `NotificationCenter.default`, never removed.
final class CensusObserver: @unchecked Sendable {
  var count = 0
  var token: (any NSObjectProtocol)?

  func observe() {
    token = NotificationCenter.default.addObserver(
      forName: Notification.Name("CensusObserverTests.ping"), object: nil, queue: nil
    ) { [self] _ in count += 1 }
  }
}

/// Held only by a detached holder the census cannot see (an unmanaged retain, as C storage would).
final class CensusHidden {
  var child = CensusHiddenChild()
}
final class CensusHiddenChild {}

/// A number that may equal an object's address.
nonisolated(unsafe) var censusCoincidence = 0

/// Counted by assertInstances.
/// The census counts heap allocations: the census fixtures' initialisers are not inlined, so that a
/// release build cannot promote an instance a test keeps only locally to the stack (where no
/// allocation is made and the census rightly sees nothing); debug allocates every one on the heap.
class CensusWidget: @unchecked Sendable {
  @inline(never) init() {}
}

/// Refers to a widget that dies first: unowned (a second unowned count, inline), or weakly (a side
/// table).
final class CensusUnownedHolder: @unchecked Sendable {
  unowned let widget: CensusWidget
  init(_ widget: CensusWidget) { self.widget = widget }
}

final class CensusWeakWidgetHolder: @unchecked Sendable {
  weak var widget: CensusWidget?
  init(_ widget: CensusWidget) { self.widget = widget }
}

protocol CensusSpecial: AnyObject {}
class CensusBaseWidget {}
final class CensusSpecialWidget: CensusWidget, CensusSpecial, @unchecked Sendable {
  @inline(never) override init() { super.init() }
}
final class CensusLeakedWidget {}
nonisolated(unsafe) var censusWidgets: [CensusWidget] = []
nonisolated(unsafe) var censusLeakedWidgets: [CensusLeakedWidget] = []

final class CensusWeakHolder {
  weak var watched: CensusImage?
  @inline(never) init() {}
}

final class CensusNode {
  var next: CensusNode?
}

/// A screen whose presenter registers itself globally.
final class CensusScreen {
  let presenter = CensusPresenter()
}

/// A failable initialiser that fails after allocation: the runtime frees a partial instance.
final class CensusFailing {
  let widget = CensusWidget()
  // Not inlined: in release too, a failing call allocates the instance and frees it partly built.
  @inline(never) init?(fail: Bool) {
    if fail { return nil }
  }
}

/// A notification center of our own (no Mutex): observers' blocks in an array.
final class CensusNotifier: @unchecked Sendable {
  static let shared = CensusNotifier()
  var blocks: [() -> Void] = []
}

/// Registers a block with the notifier that captures it strongly.
final class CensusListener {
  var heard = 0
  func listen() {
    CensusNotifier.shared.blocks.append { self.heard += 1 }
  }
}

/// A session whose end handler captures the session itself: a retain cycle through a closure.
final class CensusSession {
  var onEnd: (() -> Void)?
}

/// The current session, watched through a weak global (its storage holds a side-table reference).
nonisolated(unsafe) weak var censusCurrentSession: CensusSession?

/// The same through unowned(unsafe) and unowned globals: words equal to the address.
nonisolated(unsafe) unowned(unsafe) var censusUnsafeSession: CensusSession? = nil

/// A registry of targets beside pools that other threads keep filling and clearing.
final class CensusBusyRegistry: @unchecked Sendable {
  static let shared = CensusBusyRegistry()
  var targets: [CensusWidget] = []
  let lock = NSLock()
  var pools: [[CensusTransient]] = [[], [], []]
}

/// A generic holder: its name has angle brackets.
final class CensusGenericBox<Tag>: @unchecked Sendable {
  var images: [CensusImage] = []
}

nonisolated(unsafe) var censusGenericBox = CensusGenericBox<Int>()

/// Keeps a closure in two plain words, as storage the walk cannot read into would (C memory, a
/// buffer of bytes): the walk reads two integers there.
final class CensusOpaqueSlot {
  private var raw: (UInt, UInt) = (0, 0)

  // Not inlined (see `CensusWidget`): the slot, its words and what they keep stay on the heap.
  @inline(never) init() {}

  @inline(never) func keep(_ closure: @escaping () -> Void) {
    _ = withUnsafeMutableBytes(of: &raw) { bytes in
      bytes.baseAddress?.initializeMemory(as: (() -> Void).self, repeating: closure, count: 1)
    }
  }

  @inline(never) func drop() {
    withUnsafeMutableBytes(of: &raw) { bytes in
      _ = bytes.baseAddress?.assumingMemoryBound(to: (() -> Void).self).move()
    }
    raw = (0, 0)
  }
}

/// A listener that keeps a closure capturing itself in an opaque slot.
final class CensusSlotListener {
  var heard = 0
  @inline(never) init() {}
  func listen(on slot: CensusOpaqueSlot) {
    slot.keep { self.heard += 1 }
  }
}
