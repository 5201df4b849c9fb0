// The cross-check needs `RemoteMirror` (x86_64 Linux: see RemoteMirror.swift). There it always runs
// and fails when the library cannot be loaded: it is never skipped.
#if os(Linux) && arch(x86_64)
  import RetainGraphRuntime
  @testable import RetainGraph
  import Testing

  /// Closure capture layouts computed by `ClosureLayout` against the toolchain's own reader of them,
  /// `libswiftRemoteMirror.so`, on the closure matrix of `ClosureTests`.
  @Suite("Closure layouts agree with RemoteMirror")
  struct RemoteMirrorCrossCheckTests {
    /// Concrete function-typed stored properties: their storage holds the closure's own two words
    /// (function, context), not a reabstraction of them.
    final class SyncSlot {
      var function: () -> Void
      init(_ function: @escaping () -> Void) { self.function = function }
    }

    final class AsyncSlot {
      var function: () async -> Void
      init(_ function: @escaping () async -> Void) { self.function = function }
    }

    final class AnySlot {
      var value: Any
      init(_ value: Any) { self.value = value }
    }

    @Test func libraryLoadsAndKnowsTheTestImage() throws {
      let mirror = try RemoteMirror.shared.get()
      #expect(mirror.images.contains("/proc/self/exe"), "\(mirror.images)")
      #expect(mirror.images.contains { $0.hasSuffix("/libswiftCore.so") }, "\(mirror.images)")
    }

    @Test(arguments: CaptureStyle.allCases, ClosureStorage.allCases)
    func capturesAgree(style: CaptureStyle, storage: ClosureStorage) throws {
      let mirror = try RemoteMirror.shared.get()
      let holder = ClosureHolder()
      let leaf = Leaf()
      let (closure, _, _) = style.closure(capturing: holder, leaf: leaf)
      let where_ = "\(style) in \(storage)"
      // Whatever holds the closure's words stays alive (and so does the closure) until the end.
      let (words, keepAlive) = try Self.words(of: closure, storage, where_)
      defer { withExtendedLifetime((holder, leaf, closure, keepAlive)) {} }

      let function = words.load(as: UnsafeRawPointer?.self)
      let context = words.load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
      #expect(function != nil, "\(where_)")
      var checked = 0
      try Self.crossCheck(context: context, mirror: mirror, path: where_, checked: &checked)

      // The context RetainGraph reports captures of, after unwrapping thunks as the walk does.
      let real = Self.unwrapThunks(function: function, context: context)
      switch style {
      case .none:
        #expect(real == nil, "\(where_): a closure without captures has no context")
      case .strong, .async:
        // A single class capture: the context is the captured object itself.
        #expect(real == UnsafeRawPointer(Unmanaged.passUnretained(holder).toOpaque()), "\(where_)")
      case .nested:
        // The outer closure captures only `inner`, a thick function: its context has a thunk's shape,
        // and is unwrapped like one when its function has no name (symbols of the test binary are not
        // in the dynamic symbol table), down to `inner`'s context, the holder.
        let context = try #require(real, "\(where_)")
        #expect(
          context == UnsafeRawPointer(Unmanaged.passUnretained(holder).toOpaque())
            || Metadata.kind(ofHeapObject: context) == .heapLocalVariable, "\(where_)")
      case .generic:
        let context = try #require(real, "\(where_)")
        #if DEBUG
          #expect(Metadata.kind(ofHeapObject: context) == .heapLocalVariable, "\(where_)")
        #else
          // An optimised build specialises the generic closure for the holder's class: its one
          // capture, the holder, is the context.
          #expect(context == UnsafeRawPointer(Unmanaged.passUnretained(holder).toOpaque()), "\(where_)")
        #endif
      default:
        let context = try #require(real, "\(where_)")
        #expect(Metadata.kind(ofHeapObject: context) == .heapLocalVariable, "\(where_)")
        #expect(ClosureLayout.thunkedFunction(ofContext: context) == nil, "\(where_)")
      }
      if style != .none {
        #expect(checked > 0, "\(where_): no context was compared")
      }
    }

    /// A captured `var` is a box in the context only when the closure captures something else too:
    /// alone, the box itself is the context (the matrix's `capturedVar`).
    @Test func boxedVariableAgrees() throws {
      let mirror = try RemoteMirror.shared.get()
      let holder = ClosureHolder()
      let leaf = Leaf()
      var captured: ClosureHolder? = nil
      let slot = SyncSlot {
        captured = captured ?? nil
        _ = leaf
      }
      captured = holder
      defer { withExtendedLifetime((holder, leaf, slot)) {} }
      let (words, _) = Self.fieldWords(of: slot)
      let context = try #require(words.load(fromByteOffset: 8, as: UnsafeRawPointer?.self))
      let captures = try #require(ClosureLayout.captures(ofContext: context))
      #expect(
        captures.contains {
          if case .box(.value) = $0.kind { true } else { false }
        }, "no boxed capture: \(captures.map { "\($0.kind)" })")
      var checked = 0
      try Self.crossCheck(context: context, mirror: mirror, path: "boxed var", checked: &checked)
      // The context, then the box.
      #expect(checked == 2)
    }

    /// Contexts whose generic environment holds witness tables, parameters of two depths, or a
    /// boxed weak reference of a generic type (issue "See every reference real libraries hold").
    @Test func genericEnvironmentsAgree() throws {
      let mirror = try RemoteMirror.shared.get()
      let cancellable = CancellableViewModel.make()
      let store = StoreViewModel.make()
      let observing = StoreViewModel.makeObserving()
      defer { withExtendedLifetime((cancellable, store, observing)) {} }
      let holders: [(String, AnyObject)] = [
        ("witness tables", cancellable.cancellables[0]),
        ("boxed weak of a generic type", try #require(store.token)),
        ("two depths", try #require(observing.token)),
      ]
      for (name, holder) in holders {
        let (words, _) = Self.fieldWords(of: holder)
        let context = words.load(fromByteOffset: 8, as: UnsafeRawPointer?.self)
        let known = try #require(context, "\(name)")
        // An optimised build may specialise a closure down to one captured object, then the context
        // itself (crossCheck compares it as an instance).
        #expect(
          ClosureLayout.captures(ofContext: known) != nil || Metadata.kind(ofHeapObject: known) == .class,
          "\(name)")
        var checked = 0
        try Self.crossCheck(
          context: Self.unwrapThunks(function: words.load(as: UnsafeRawPointer?.self), context: context),
          mirror: mirror, path: name, checked: &checked)
        #expect(checked > 0, "\(name): nothing compared")
      }
    }

    // MARK: - Reading closures

    /// The two words of `closure` stored as `storage` holds it, and what owns that storage.
    static func words(
      of closure: Any, _ storage: ClosureStorage, _ where_: String
    ) throws -> (UnsafeRawPointer, AnyObject) {
      if let sync = closure as? () -> Void {
        switch storage {
        case .property:
          return fieldWords(of: SyncSlot(sync))
        case .any:
          return try anyWords(of: AnySlot(sync), where_)
        case .array:
          return try arrayWords(of: AnySlot([sync]), as: (() -> Void).self, where_)
        case .dictionary:
          let dictionary = ["done": sync]
          return fieldWords(of: SyncSlot(try #require(dictionary["done"], "\(where_)")))
        }
      }
      let async = try #require(closure as? () async -> Void, "\(where_): not a closure")
      switch storage {
      case .property:
        return fieldWords(of: AsyncSlot(async))
      case .any:
        return try anyWords(of: AnySlot(async), where_)
      case .array:
        return try arrayWords(of: AnySlot([async]), as: (() async -> Void).self, where_)
      case .dictionary:
        let dictionary = ["done": async]
        return fieldWords(of: AsyncSlot(try #require(dictionary["done"], "\(where_)")))
      }
    }

    /// The first stored property of a final root class starts after the two-word object header.
    private static func fieldWords(of object: AnyObject) -> (UnsafeRawPointer, AnyObject) {
      (UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()) + 16, object)
    }

    /// A function in `Any` is stored inline in the existential's three-word buffer.
    private static func anyWords(of slot: AnySlot, _ where_: String) throws -> (UnsafeRawPointer, AnyObject) {
      let (existential, _) = fieldWords(of: slot)
      let type = try #require(existential.load(fromByteOffset: 24, as: UnsafeRawPointer?.self), "\(where_)")
      #expect(Metadata.kind(of: Metadata.type(at: type)) == .function, "\(where_)")
      return (existential, slot)
    }

    /// An array's element storage (the slot keeps the array, and so its buffer, alive).
    private static func arrayWords<F>(
      of slot: AnySlot, as _: F.Type, _ where_: String
    ) throws -> (UnsafeRawPointer, AnyObject) {
      let array = try #require(slot.value as? [F], "\(where_)")
      let base = array.withUnsafeBufferPointer { $0.baseAddress.map(UnsafeRawPointer.init) }
      return (try #require(base, "\(where_)"), slot)
    }

    /// The walk's unwrapping of reabstraction thunk contexts.
    static func unwrapThunks(function: UnsafeRawPointer?, context: UnsafeRawPointer?) -> UnsafeRawPointer? {
      ClosureLayout.unwrappingThunks(ThickFunction(function: function, context: context))?.function.context
    }

    // MARK: - Comparing

    /// Compares what RetainGraph and RemoteMirror say about `context`, then about the contexts of the
    /// functions it captures (thunked closures, captured closures).
    static func crossCheck(
      context: UnsafeRawPointer?, mirror: RemoteMirror, path: String, checked: inout Int, depth: Int = 0
    ) throws {
      guard let context, depth < 8 else { return }
      let info = mirror.info(ofInstance: context)
      let captures = ClosureLayout.captures(ofContext: context)
      checked += 1
      if Metadata.kind(ofHeapObject: context) == .class {
        // A context that is the one captured object: no capture descriptor, an ordinary instance.
        #expect(captures == nil, "\(path)")
        #expect(info.kind == .classInstance, "\(path): RemoteMirror sees \(info)")
        return
      }
      #expect(info.kind == .closureContext, "\(path): RemoteMirror does not recognise the context: \(info)")
      let ours = try #require(captures, "\(path): RetainGraph does not recognise the context")
      let theirs = (0..<info.fieldCount).map { mirror.child(ofInstance: context, index: $0) }
      let description = zip(ours, theirs).map { "\($0.offset): \($0.kind) ↔ \($1.offset): \($1)" }
      #expect(ours.count == theirs.count, "\(path): \(ours.count) captures ↔ \(theirs.count) fields")
      for (index, (capture, child)) in zip(ours, theirs).enumerated() {
        let at = "\(path), capture \(index): \(description)"
        #expect(capture.offset == child.offset, "\(at)")
        let kinds = expectedLayoutKinds(of: capture.kind)
        #expect(child.kind.map(kinds.contains) == true, "\(at): expected one of \(kinds)")
        switch capture.kind {
        case .value(let type):
          #expect(Metadata.size(of: type) == child.size, "\(at): size")
          #expect(String(reflecting: type) == child.typeName, "\(at): type")
        case .box(.reference(.weak)):
          #expect(child.typeName.contains("{ var weak "), "\(at): a box holding a weak reference")
        case .box(.reference(.unowned)):
          #expect(child.typeName.contains("{ var unowned "), "\(at): a box holding an unowned reference")
        case .box(.value(let type)):
          #expect(
            child.typeName.contains("{ var \(String(reflecting: type)) }"), "\(at): a box holding a value")
        default:
          break
        }
      }
      // RemoteMirror's context size is the end of its last field.
      if let last = ours.last, let end = end(of: last) {
        #expect(info.size == end, "\(path): context size \(info.size), last capture ends at \(end)")
      }

      for (index, capture) in ours.enumerated() {
        let inner = "\(path) → capture \(index)"
        switch capture.kind {
        case .function:
          try crossCheck(
            context: (context + capture.offset).load(fromByteOffset: 8, as: UnsafeRawPointer?.self),
            mirror: mirror, path: inner, checked: &checked, depth: depth + 1)
        case .value(let type) where ClosureLayout.isThick(type):
          try crossCheck(
            context: (context + capture.offset).load(fromByteOffset: 8, as: UnsafeRawPointer?.self),
            mirror: mirror, path: inner, checked: &checked, depth: depth + 1)
        case .box:
          // The walk reads a box's payload at box + 16: the box, a heap object of kind
          // HeapLocalVariable, describes it with a capture descriptor of its own, when it has one.
          guard let box = (context + capture.offset).load(as: UnsafeRawPointer?.self) else { continue }
          try crossCheckBox(box, mirror: mirror, path: inner, checked: &checked)
        default:
          continue
        }
      }
    }

    private static func crossCheckBox(
      _ box: UnsafeRawPointer, mirror: RemoteMirror, path: String, checked: inout Int
    ) throws {
      guard let payload = ClosureLayout.captures(ofContext: box) else {
        // Without a capture descriptor neither side can describe the box.
        #expect(
          mirror.info(ofInstance: box).kind != .closureContext, "\(path): RemoteMirror describes the box")
        return
      }
      #expect(payload.map(\.offset) == [16], "\(path): the payload of a box is at box + 16")
      if mirror.info(ofInstance: box).kind == .unknown, payload.count == 1, case .reference = payload[0].kind
      {
        // A box of a weak reference whose type mentions a generic parameter (`…Xwz_x_lXX`) holds no
        // bindings: RemoteMirror cannot lay it out without them. The walk needs only the offset.
        return
      }
      try crossCheck(context: box, mirror: mirror, path: path, checked: &checked)
    }

    /// The RemoteMirror layout kinds that describe a capture of this kind.
    static func expectedLayoutKinds(of kind: Capture.Kind) -> Set<RemoteMirror.LayoutKind> {
      switch kind {
      case .reference(.weak): return [.weakReference]
      case .reference(.unowned): return [.unownedReference]
      case .reference(.unownedUnsafe): return [.unmanagedReference]
      case .function: return [.thickFunction]
      // A box is a strong reference to a heap object holding the value.
      case .box: return [.strongReference]
      case .value(let type):
        switch Metadata.kind(of: type) {
        case .class: return [.strongReference]
        case .struct: return [.struct]
        case .enum, .optional: return [.noPayloadEnum, .singlePayloadEnum, .multiPayloadEnum]
        case .tuple: return [.tuple]
        case .function: return ClosureLayout.isThick(type) ? [.thickFunction] : [.builtin, .rawPointer]
        case .existential: return [.opaqueExistential, .classExistential, .errorExistential]
        case .metatype: return [.builtin, .existentialMetatype]
        default: return []
        }
      }
    }

    /// Where a capture ends, when its size is known without RemoteMirror.
    private static func end(of capture: Capture) -> Int? {
      switch capture.kind {
      case .value(let type): return capture.offset + Metadata.size(of: type)
      case .function: return capture.offset + 16
      case .box, .reference: return capture.offset + 8
      }
    }
  }

  extension RemoteMirror.Child: CustomStringConvertible {
    var description: String { "\(kind.map { "\($0)" } ?? "?") \(typeName) (\(size) bytes)" }
  }

  extension RemoteMirror.TypeInfo: CustomStringConvertible {
    var description: String {
      "\(kind.map { "\($0)" } ?? "?"), \(fieldCount) fields, \(size) bytes"
    }
  }
#endif
