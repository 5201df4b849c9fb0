/// A copyable stand-in with one generic parameter, whose mangled name (`11RetainGraph2_PV`) adds
/// the same substitutions and words as `15Synchronization5MutexV`: see
/// `Metadata.noncopyableType(mangled:in:)` (`RetainGraphRuntime/Metadata+HiddenTypes.swift`), which
/// names it by that text. It is declared in the core because its module's name must be two words,
/// as `Synchronization.Mutex` is (`RetainGraphRuntime` is three); nothing calls it, the runtime
/// finds it by name.
struct _P<Value> {}
