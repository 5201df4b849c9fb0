internal import Foundation

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// The functions an optimised build inlined into a function, from the image's DWARF (README.md in
/// this folder, "Method references in optimised builds"). A release build inlines a method into the
/// compiler's curry thunk, so its machine code calls nothing that names the method; the debug
/// information still says which functions were inlined there (`DW_TAG_inlined_subroutine` under
/// the `DW_TAG_subprogram` whose `DW_AT_low_pc` is the function's address, each naming its origin's
/// `DW_AT_linkage_name`).
///
/// Read once per image, on first use, only when a method reference is not named by its direct
/// calls. Anything not understood (64-bit DWARF, an unknown form, a missing section) gives no names:
/// the reference is then shown as a closure, as before.
final class ImageDebugInfo: @unchecked Sendable {
  /// Per function start (virtual address): the DIE offsets of the functions inlined into it.
  private var inlined: [UInt: [Int]] = [:]
  /// Per DIE offset: its linkage name (a C string in the mapped file).
  private var names: [Int: UnsafePointer<CChar>] = [:]
  /// Per DIE offset without a linkage name: the DIE it refers to (abstract origin or specification).
  private var origins: [Int: Int] = [:]
  /// Per async partial function (`…TQn_`, `…TYn_`) start: the async-context offsets its variables
  /// name, or nil when a variable's location is not one this reader understands.
  private var frameSlots: [UInt: [Int]?] = [:]
  /// Per async function (its mangled name without the partial-function suffix): the starts of its
  /// partial functions.
  private var partialFunctions: [String: [UInt]] = [:]
  /// Per partial function start: its async function's name.
  private var asyncFunctions: [UInt: String] = [:]
  /// The image stays mapped for the process: the names point into it.
  private var mapping: UnsafeRawPointer?

  init(path: String) {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_size > 64 else { return }
    let length = Int(status.st_size)
    guard let base = mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0), base != MAP_FAILED else {
      return
    }
    mapping = UnsafeRawPointer(base)
    guard let sections = Self.sections(UnsafeRawPointer(base), length: length),
      let info = sections[".debug_info"], let abbreviations = sections[".debug_abbrev"]
    else { return }
    var reader = DWARFInfoReader(
      file: UnsafeRawPointer(base), info: info, abbreviations: abbreviations, strings: sections[".debug_str"],
      lineStrings: sections[".debug_line_str"])
    reader.read()
    inlined = reader.inlined
    names = reader.names
    origins = reader.origins
    frameSlots = reader.frameSlots
    for (start, name) in reader.partialFunctionNames {
      let mangled = String(cString: name)
      guard let base = Self.asyncFunction(ofPartialFunction: mangled) else { continue }
      partialFunctions[base, default: []].append(start)
      asyncFunctions[start] = base
    }
  }

  /// The offsets, in the async context of the function that the partial function starting at the
  /// virtual address `start` resumes, of the variables that this function keeps in its frame but
  /// that the debug information does not place in that partial function: slots whose lifetime
  /// ended before the function was suspended there (README.md in this folder, "Suspended frames").
  /// Empty when the partial function is not known or a location is not understood.
  func deadFrameOffsets(resumingAt start: UInt) -> Set<Int> {
    guard let base = asyncFunctions[start], let live = frameSlots[start] ?? nil else { return [] }
    var dead: Set<Int> = []
    for other in partialFunctions[base] ?? [] where other != start {
      dead.formUnion((frameSlots[other] ?? nil) ?? [])
    }
    return dead.subtracting(live)
  }

  /// The offsets, in the async context of the function that the partial function starting at
  /// `start` resumes, of every variable any of that function's partial functions places in its
  /// frame; nil when the partial function is not known or a location is not understood.
  func frameOffsets(ofFunctionResumingAt start: UInt) -> Set<Int>? {
    guard let base = asyncFunctions[start] else { return nil }
    var offsets: Set<Int> = []
    for partial in partialFunctions[base] ?? [] {
      guard let slots = frameSlots[partial] ?? nil else { return nil }
      offsets.formUnion(slots)
    }
    return offsets
  }

  /// The async function's mangled name of a partial function's (`$s…TQ0_` → `$s…`), nil when the
  /// name is not a partial function's.
  static func asyncFunction(ofPartialFunction name: String) -> String? {
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

  /// The start addresses of the functions with inlined code.
  var functionsWithInlinedCode: [UInt] { Array(inlined.keys) }

  /// The mangled names of the functions inlined (at any depth) into the function that starts at
  /// the virtual address `start`, in the order the DWARF lists them.
  func inlinedFunctions(at start: UInt) -> [String] {
    (inlined[start] ?? []).compactMap { offset in
      var die = offset
      for _ in 0..<8 {
        if let name = names[die] { return String(cString: name) }
        guard let next = origins[die] else { return nil }
        die = next
      }
      return nil
    }
  }

  /// The file ranges of the ELF64 sections by name.
  private static func sections(_ file: UnsafeRawPointer, length: Int) -> [String: Range<Int>]? {
    guard file.load(as: UInt32.self) == 0x464C_457F, file.load(fromByteOffset: 4, as: UInt8.self) == 2 else {
      return nil
    }
    let headers = Int(file.loadUnaligned(fromByteOffset: 0x28, as: UInt64.self))
    let headerSize = Int(file.loadUnaligned(fromByteOffset: 0x3A, as: UInt16.self))
    let count = Int(file.loadUnaligned(fromByteOffset: 0x3C, as: UInt16.self))
    let namesIndex = Int(file.loadUnaligned(fromByteOffset: 0x3E, as: UInt16.self))
    func inBounds(_ offset: Int, _ size: Int) -> Bool { offset >= 0 && size >= 0 && offset + size <= length }
    guard headerSize >= 64, namesIndex < count, inBounds(headers, headerSize * count) else { return nil }
    let namesOffset = Int(
      file.loadUnaligned(fromByteOffset: headers + namesIndex * headerSize + 0x18, as: UInt64.self))
    var result: [String: Range<Int>] = [:]
    for index in 0..<count {
      let header = headers + index * headerSize
      let nameOffset = Int(file.loadUnaligned(fromByteOffset: header, as: UInt32.self))
      let offset = Int(file.loadUnaligned(fromByteOffset: header + 0x18, as: UInt64.self))
      let size = Int(file.loadUnaligned(fromByteOffset: header + 0x20, as: UInt64.self))
      // SHT_NOBITS (8) has no bytes in the file.
      guard file.loadUnaligned(fromByteOffset: header + 4, as: UInt32.self) != 8, inBounds(offset, size),
        inBounds(namesOffset + nameOffset, 1)
      else { continue }
      let name = String(cString: (file + namesOffset + nameOffset).assumingMemoryBound(to: CChar.self))
      result[name] = offset..<(offset + size)
    }
    return result
  }
}
