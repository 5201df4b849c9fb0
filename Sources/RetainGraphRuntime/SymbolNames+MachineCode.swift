// The one file of RetainGraphRuntime that reads machine code (RetainGraphMachineCode), on the
// symbols of RetainGraphImages: without the package trait `BinaryReaders`, or on another
// architecture than x86_64, every answer is empty (nil for `mergedCallers`).

internal import Foundation
internal import RetainGraphSupport
internal import Synchronization

#if BinaryReaders
  internal import RetainGraphImages
  internal import RetainGraphMachineCode
#endif

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// What a function's machine code says (x86_64): the functions it calls or jumps to directly, and
/// the callers of a body that LLVM merged for several functions.
extension SymbolNames {
  /// The functions the function that starts at `address` calls or jumps to directly, in order,
  /// named (demangled, not simplified); with `following`, the callees of callees whose names match
  /// are read too (a compiler thunk that tail-calls the closure that calls the method), up to three
  /// levels. Read from the machine code, decoded from the function's start
  /// (`MachineCode.directBranchTargets`): a direct call or jump counts when its target is the start
  /// of a named function. Empty on other architectures, or when the symbol tables do not give the
  /// function's size.
  package static func directCallees(
    ofFunctionAt address: UnsafeRawPointer, following: (String) -> Bool = { _ in false }
  ) -> [String] {
    directCalls(ofFunctionAt: address, following: following).map(\.name)
  }

  /// ``directCallees(ofFunctionAt:following:)`` with each callee's address, and the functions read
  /// (the one at `address` first, then those followed).
  package static func directCalls(
    ofFunctionAt address: UnsafeRawPointer, following: (String) -> Bool = { _ in false }
  ) -> [(address: UnsafeRawPointer, name: String)] {
    #if BinaryReaders && arch(x86_64)
      var callees: [(address: UnsafeRawPointer, name: String)] = []
      var pending: [(UnsafeRawPointer, Int)] = [(address, 0)]
      var visited: Set<UInt> = []
      while let (function, level) = pending.popLast() {
        guard visited.insert(UInt(bitPattern: function)).inserted,
          let (owner, base) = Self.image(containing: function),
          let extent = owner.extent(at: UInt(bitPattern: function) &- UInt(bitPattern: base)),
          extent.size < 4096
        else { continue }
        let start = UnsafeRawPointer(base) + Int(extent.start)
        var found: [(address: UnsafeRawPointer, name: String)] = []
        for destination in MachineCode.directBranchTargets(at: start, size: Int(extent.size)) {
          guard let target = UnsafeRawPointer(bitPattern: destination),
            let (image, targetBase) = Self.image(containing: target)
          else { continue }
          let offset = destination &- UInt(bitPattern: targetBase)
          guard image.extent(at: offset)?.start == offset, let symbol = image.name(at: offset),
            let name = demangled(symbol)
          else { continue }
          found.append((target, name))
        }
        callees += found
        if level < 3 {
          pending += found.reversed().filter { following($0.name) }.map { ($0.address, level + 1) }
        }
      }
      return callees
    #else
      return []
    #endif
  }

  /// The functions whose body is only a jump to the function at `address` (after the frame
  /// set-up `push rbp; mov rbp, rsp; pop rbp`), among the image's functions whose mangled name
  /// contains `identifier` (e.g. `14handleResponse`): LLVM's function merging keeps one body for
  /// functions with identical machine code and turns the others into such jumps, and calls to any
  /// of them go to the body, named after one of them only. Named (demangled). x86_64 only (with
  /// the binary readers).
  package static func mergedTwins(ofFunctionAt address: UnsafeRawPointer, identifier: String) -> [String] {
    #if BinaryReaders && arch(x86_64)
      guard let (image, base) = image(containing: address), !identifier.isEmpty else { return [] }
      let candidates = identifier.withCString { wanted in image.entries { strstr($0, wanted) != nil } }
      return candidates.compactMap { candidate -> String? in
        let start = UnsafeRawPointer(base) + Int(candidate.start)
        guard let extent = image.extent(at: candidate.start),
          MachineCode.onlyJumpTarget(at: start, size: Int(extent.size)) == UInt(bitPattern: address)
        else { return nil }
        return demangled(candidate.name)
      }
    #else
      return []
    #endif
  }

  /// When the function containing `address` is a merged body (`$s…Tm`: LLVM's function merging
  /// keeps one body for functions whose code differs only in constants, and each of them passes its
  /// constants and jumps to the body), those functions (demangled), each with the addresses it
  /// loads before the jump; nil when the function is not a merged body. x86_64 only (nil elsewhere).
  package static func mergedCallers(ofFunctionContaining address: UnsafeRawPointer) -> [(
    name: String, loads: [UInt]
  )]? {
    #if BinaryReaders && arch(x86_64)
      guard let (image, base) = image(containing: address) else { return nil }
      let offset = UInt(bitPattern: address) &- UInt(bitPattern: base)
      guard let extent = image.extent(at: offset), let symbol = image.name(at: offset), symbol.hasSuffix("Tm")
      else { return nil }
      let body = UInt(bitPattern: base) + extent.start
      if let known = mergedCallersByBody.withLock({ $0[body] }) { return known }
      var callers: [(name: String, loads: [UInt])] = []
      for start in image.starts(ofSymbolsUpTo: 64) {
        guard let size = image.extent(at: start)?.size,
          let loads = MachineCode.mergedCallerLoads(
            at: UnsafeRawPointer(base) + Int(start), size: Int(size), jumpingTo: body),
          let name = image.name(at: start).flatMap(demangled)
        else { continue }
        callers.append((name, loads))
      }
      mergedCallersByBody.withLock { $0[body] = callers }
      return callers
    #else
      return nil
    #endif
  }

  private static let mergedCallersByBody = ForkSafeMutex<[UInt: [(name: String, loads: [UInt])]]>([:])
}
