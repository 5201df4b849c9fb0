// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  #if canImport(Glibc)
    internal import Glibc
  #elseif canImport(Musl)
    internal import Musl
  #elseif canImport(Darwin)
    internal import Darwin
  #endif

  /// The names the Swift compiler gives an async function's partial functions (its funclets):
  /// `$s<function>TQ<n>_` (resumed after an await returned) and `$s<function>TY<n>_` (resumed after
  /// a suspension), which the debug information and the symbol tables both use.
  package enum AsyncFunctionNames {
    /// The async function's mangled name of a partial function's (`$s…TQ0_` → `$s…`), nil when the
    /// name is not a partial function's.
    package static func asyncFunction(ofPartialFunction name: String) -> String? {
      var characters = Array(name.utf8)
      guard characters.last == UInt8(ascii: "_") else { return nil }
      characters.removeLast()
      while let last = characters.last, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(last) {
        characters.removeLast()
      }
      guard characters.count > 2, characters[characters.count - 2] == UInt8(ascii: "T"),
        characters.last == UInt8(ascii: "Q") || characters.last == UInt8(ascii: "Y")
      else { return nil }
      return String(decoding: characters.dropLast(2), as: UTF8.self)
    }

    /// Whether a linkage name is an async partial function's (`…TQ0_`, `…TY2_`).
    static func isPartialFunction(_ name: UnsafePointer<CChar>) -> Bool {
      let bytes = UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self)
      let length = strlen(name)
      guard length > 4, bytes[length - 1] == UInt8(ascii: "_") else { return false }
      var index = length - 2
      while index > 1, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
        index -= 1
      }
      return bytes[index - 1] == UInt8(ascii: "T")
        && (bytes[index] == UInt8(ascii: "Q") || bytes[index] == UInt8(ascii: "Y"))
    }
  }
#endif
