internal import Foundation
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
enum GlobalStorage {
  /// One writable `PT_LOAD` segment of a loaded image.
  struct Segment {
    var start: UInt
    var end: UInt
    /// The image's load bias (`dlpi_addr`) and file path.
    var bias: UInt
    var path: String
  }

  /// A word in a writable segment equal to one of the addresses looked for.
  struct Hit {
    var wordAddress: UInt
    var value: UInt
    var segment: Segment
  }

  /// `struct dl_phdr_info` as glibc lays it out (its first four fields).
  private struct ImageInfo {
    var address: UInt
    var name: UnsafePointer<CChar>?
    var headers: UnsafeRawPointer?
    var headerCount: UInt16
  }

  private typealias Callback =
    @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Int32
  private typealias IteratePhdr = @convention(c) (Callback, UnsafeMutableRawPointer?) -> Int32
  private static let iterate: IteratePhdr? = RuntimeSymbols.function("dl_iterate_phdr", as: IteratePhdr.self)
  private static let dataSymbols = ForkSafeMutex<[String: ImageSymbols]>([:])

  /// Every writable `PT_LOAD` segment of every loaded image (empty where `dl_iterate_phdr` is
  /// missing).
  static func segments() -> [Segment] {
    guard let iterate else { return [] }
    final class Box { var segments: [Segment] = [] }
    let box = Box()
    _ = withExtendedLifetime(box) {
      iterate(
        { info, _, context in
          guard let info, let context else { return 0 }
          let box = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue()
          let image = info.load(as: ImageInfo.self)
          guard let headers = image.headers else { return 0 }
          var path = image.name.map { String(cString: $0) } ?? ""
          if path.isEmpty { path = "/proc/self/exe" }
          for index in 0..<Int(image.headerCount) {
            // Elf64_Phdr: p_type u32 at 0, p_flags u32 at 4, p_vaddr at 16, p_memsz at 40.
            let header = headers + 56 * index
            guard header.load(as: UInt32.self) == 1, header.load(fromByteOffset: 4, as: UInt32.self) & 2 != 0
            else { continue }
            let start = image.address &+ UInt(header.load(fromByteOffset: 16, as: UInt64.self))
            let size = UInt(header.load(fromByteOffset: 40, as: UInt64.self))
            box.segments.append(Segment(start: start, end: start &+ size, bias: image.address, path: path))
          }
          return 0
        }, Unmanaged.passUnretained(box).toOpaque())
    }
    return box.segments
  }

  /// The words of the writable segments equal to one of `addresses`, in segment order.
  /// `isWanted` is asked for every 16-byte-aligned non-zero word (a heap object's address is).
  static func scan(_ segments: [Segment], isWanted: (UInt) -> Bool) -> [Hit] {
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
  static func symbol(containing address: UInt, in segment: Segment) -> String? {
    let symbols = self.symbols(of: segment)
    return symbols.name(at: address &- segment.bias &- symbols.loadBase)
  }

  /// Calls `body` with the address and mangled name of each Swift global variable's storage
  /// (`$s…vp`, `$s…vpZ`) in the writable segments whose first word is not zero (initialised).
  static func variables(_ segments: [Segment], _ body: (UInt, String) -> Void) {
    for segment in segments {
      let symbols = self.symbols(of: segment)
      let variables = variableEntries.withLock { cache in
        if let known = cache[segment.path] { return known }
        let found = symbols.entries(where: isVariableStorage)
        cache[segment.path] = found
        return found
      }
      let base = segment.bias &+ symbols.loadBase
      for (offset, name) in variables {
        let address = base &+ offset
        guard address >= segment.start, address + 8 <= segment.end, address & 7 == 0,
          let word = UnsafeRawPointer(bitPattern: address)?.load(as: UInt.self), word != 0
        else { continue }
        body(address, name)
      }
    }
  }

  private static let variableEntries = ForkSafeMutex<[String: [(start: UInt, name: String)]]>([:])

  private static func isVariableStorage(_ name: UnsafePointer<CChar>) -> Bool {
    guard name[0] == 0x24, name[1] == 0x73 else { return false }  // "$s"
    let length = strlen(name)
    guard length > 4 else { return false }
    let last = name[length - 1]
    if last == 0x5A { return name[length - 3] == 0x76 && name[length - 2] == 0x70 }  // "vpZ"
    return name[length - 2] == 0x76 && last == 0x70  // "vp"
  }

  private static func symbols(of segment: Segment) -> ImageSymbols {
    dataSymbols.withLock { cache in
      if let known = cache[segment.path] { return known }
      let loaded = ImageSymbols(path: segment.path, symbolType: 1)
      cache[segment.path] = loaded
      return loaded
    }
  }
}
