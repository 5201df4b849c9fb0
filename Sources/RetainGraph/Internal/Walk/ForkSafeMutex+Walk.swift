internal import RetainGraphSupport

/// The library's own process-wide caches (every `ForkSafeMutex` holds one) are not walked: a walk
/// changes them as it goes (the type plans, the names it looks up), so what it read through them
/// may be gone when it is used. In a forked child the heap census's count read a cache's dictionary
/// storage that the same walk had grown and freed since, and crashed on its strong count. A cache
/// is held by a global of its own for the life of the process, so what it holds is alive whatever
/// the walk says; not reading it makes that count as held from outside, which it is.
extension ForkSafeMutex: GraphReflectable {
  package var graphChildren: [GraphChild] { [] }
}
