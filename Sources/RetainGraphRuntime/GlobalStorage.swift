internal import Foundation
package import RetainGraphImages
internal import RetainGraphSupport
internal import Synchronization

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// The writable segments of every loaded image, where `static let` and global `var` storage lives,
/// and the names of the data symbols there (local symbols, read from each image's `.symtab`).
package enum GlobalStorage {
  /// One writable `PT_LOAD` segment of a loaded image.
  package typealias Segment = Loader.Segment

  /// A word in a writable segment equal to one of the addresses looked for.
  package struct Hit {
    package var wordAddress: UInt
    package var value: UInt
    package var segment: Segment
  }

  /// Every writable `PT_LOAD` segment of every loaded image (empty where the loader cannot list
  /// them).
  package static func segments() -> [Segment] { Loader.writableSegments() }

  /// The words of the writable segments equal to one of `addresses`, in segment order.
  /// `isWanted` is asked for every 16-byte-aligned non-zero word (a heap object's address is).
  package static func scan(_ segments: [Segment], isWanted: (UInt) -> Bool) -> [Hit] {
    var hits: [Hit] = []
    for segment in segments {
      var address = (segment.start + 7) & ~UInt(7)
      while address + 8 <= segment.end {
        let value = UnsafeRawPointer(bitPattern: address).map { $0.load(as: UInt.self) } ?? 0
        if value != 0, value & 0xF == 0, isWanted(value) {
          hits.append(Hit(wordAddress: address, value: value, segment: segment))
        }
        address += 8
      }
    }
    return hits
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
}

/// Reads words at addresses that may not be mapped (a global whose declared type the walk cannot
/// trust, a pointer it has not verified) without faulting: the kernel copies the word into a pipe,
/// and reports an address it cannot read as `EFAULT` instead of a signal.
package enum ReadableMemory {
  /// The pipe, and the process that made it: a forked child makes its own rather than share the
  /// parent's.
  private struct Pipe {
    var process: pid_t
    var read: Int32
    var write: Int32
  }

  private static let pipe = ForkSafeMutex<Pipe?>(nil)
  /// glibc's `pipe2`, which the Glibc module does not export.
  private static let pipe2 = RuntimeSymbols.function(
    "pipe2", as: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)

  /// The word at `address`, or nil when it cannot be read (or is not 8-byte aligned).
  package static func word(at address: UInt) -> UInt? {
    guard address != 0, address & 7 == 0, let source = UnsafeRawPointer(bitPattern: address) else {
      return nil
    }
    return pipe.withLock { pipe -> UInt? in
      if pipe?.process != getpid() {
        // A child inherited its parent's ends: leave them (the parent's), make its own.
        var ends: [Int32] = [-1, -1]
        guard let pipe2, pipe2(&ends, Int32(O_CLOEXEC | O_NONBLOCK)) == 0 else { return nil }
        pipe = Pipe(process: getpid(), read: ends[0], write: ends[1])
      }
      guard let pipe, write(pipe.write, source, 8) == 8 else { return nil }
      var value: UInt = 0
      guard read(pipe.read, &value, 8) == 8 else { return nil }
      return value
    }
  }

  /// Whether `address` is an object whose class is `wanted` or a subclass of it, read without
  /// trusting any word on the way (each metadata's kind word must say "class", 0, on this platform).
  package static func isInstance(at address: UInt, of wanted: UnsafeRawPointer) -> Bool {
    var metadata = word(at: address)
    for _ in 0..<64 {
      guard let current = metadata, current != 0 else { return false }
      if current == UInt(bitPattern: wanted) { return true }
      guard word(at: current) == 0 else { return false }
      metadata = word(at: current + 8)
    }
    return false
  }
}
