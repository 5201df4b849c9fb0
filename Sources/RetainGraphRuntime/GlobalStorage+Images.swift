// The one file of RetainGraphRuntime that asks the loader and the images for the writable segments
// and their data symbols (RetainGraphImages): the seam a platform without an image reader builds
// without (the package trait `BinaryReaders` off). There no segment is listed, so no global is found.

internal import Foundation
internal import RetainGraphSupport

#if BinaryReaders
  internal import RetainGraphImages
#endif

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

extension GlobalStorage {
  #if BinaryReaders
    /// Every writable `PT_LOAD` segment of every loaded image (empty where the loader cannot list
    /// them).
    package static func segments() -> [Segment] {
      Loader.writableSegments().map { Segment(start: $0.start, end: $0.end, bias: $0.bias, path: $0.path) }
    }

    /// The mangled name of the data symbol that contains `address`, from its image's symbol table.
    package static func symbol(containing address: UInt, in segment: Segment) -> String? {
      let symbols = self.symbols(of: segment)
      return symbols.data.name(at: address &- segment.bias &- symbols.loadBase)
    }

    /// Calls `body` with the address and mangled name of each Swift global variable's storage
    /// (`$s…vp`, `$s…vpZ`) in the writable segments whose first word is not zero (initialised) and,
    /// for a lazily initialised one, whose once-token says its initialiser finished.
    package static func variables(_ segments: [Segment], _ body: (UInt, String) -> Void) {
      for segment in segments {
        let symbols = self.symbols(of: segment)
        let variables = variableEntries.withLock { cache in
          if let known = cache[segment.path] { return known }
          let found = lazyVariables(symbols.data)
          cache[segment.path] = found
          return found
        }
        let base = segment.bias &+ symbols.loadBase
        for variable in variables {
          let address = base &+ variable.start
          guard address >= segment.start, address + 8 <= segment.end, address & 7 == 0,
            let word = UnsafeRawPointer(bitPattern: address)?.load(as: UInt.self), word != 0
          else { continue }
          if let token = variable.token {
            // swift_once's predicate: negative once the initialiser ran (Linux: an `int32` flag; Darwin:
            // `dispatch_once_t`, ~0 when done); a token in another segment is read from its own address.
            let tokenAddress = base &+ token
            guard tokenAddress & 3 == 0,
              let flag = UnsafeRawPointer(bitPattern: tokenAddress)?.load(as: Int32.self), flag < 0
            else { continue }
          }
          body(address, variable.name)
        }
      }
    }

    /// A global variable's storage, with the offset of its once-token when it is initialised lazily.
    private struct VariableEntry {
      var start: UInt
      var name: String
      var token: UInt?
    }

    private static let variableEntries = ForkSafeMutex<[String: [VariableEntry]]>([:])

    /// The image's variables, each with its once-token (`$s<context><name>_Wz`): the token's mangling
    /// is the variable's up to its type, so a variable's token is the longest token name that starts
    /// its own name.
    private static func lazyVariables(_ symbols: SymbolTable) -> [VariableEntry] {
      var tokens: [String: UInt] = [:]
      for (start, name) in symbols.entries(where: isOnceToken) { tokens[String(name.dropLast(3))] = start }
      return symbols.entries(where: isVariableStorage).map { start, name in
        var token: UInt?
        if !tokens.isEmpty {
          var prefix = Substring(name)
          while prefix.count > 2, token == nil {
            prefix = prefix.dropLast()
            token = tokens[String(prefix)]
          }
        }
        return VariableEntry(start: start, name: name, token: token)
      }
    }

    private static func isOnceToken(_ name: UnsafePointer<CChar>) -> Bool {
      guard name[0] == 0x24, name[1] == 0x73 else { return false }  // "$s"
      let length = strlen(name)
      // Ends in "_Wz".
      return length > 5 && name[length - 3] == 0x5F && name[length - 2] == 0x57 && name[length - 1] == 0x7A
    }

    private static func isVariableStorage(_ name: UnsafePointer<CChar>) -> Bool {
      guard name[0] == 0x24, name[1] == 0x73 else { return false }  // "$s"
      let length = strlen(name)
      guard length > 4 else { return false }
      let last = name[length - 1]
      if last == 0x5A { return name[length - 3] == 0x76 && name[length - 2] == 0x70 }  // "vpZ"
      return name[length - 2] == 0x76 && last == 0x70  // "vp"
    }

    /// The symbols of the segment's image (`ImageCatalogue`: read once per image).
    private static func symbols(of segment: Segment) -> ImageSymbols {
      ImageCatalogue.image(atPath: segment.path).symbols
    }
  #else
    /// No segment: this build does not read the loader's list of images.
    package static func segments() -> [Segment] { [] }

    package static func symbol(containing address: UInt, in segment: Segment) -> String? { nil }

    package static func variables(_ segments: [Segment], _ body: (UInt, String) -> Void) {}
  #endif
}
