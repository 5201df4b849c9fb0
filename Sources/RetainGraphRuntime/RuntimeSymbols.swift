#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// Looks up C entry points of the Swift runtime and libc by name. Swift 6.3 reserves several runtime
/// names for `@_silgen_name` (`swift_weakLoadStrong`, `swift_getTypeByMangledNameInContext`…), and
/// the Glibc module does not export `dladdr`: all of them are reached through `dlsym`.
package enum RuntimeSymbols {
  /// The function named `name` as a C function of type `Function`, or nil when it is not loaded.
  package static func function<Function>(_ name: String, as type: Function.Type) -> Function? {
    address(of: name).map { unsafeBitCast($0, to: type) }
  }

  /// The address of the exported symbol `name`, or nil when no loaded image exports it.
  package static func address(of name: String) -> UnsafeRawPointer? {
    #if canImport(Darwin)
      let handle = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
    #else
      let handle: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
    #endif
    return dlsym(handle, name).map { UnsafeRawPointer($0) }
  }
}
