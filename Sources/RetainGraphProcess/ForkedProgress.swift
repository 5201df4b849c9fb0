#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// What a forked child says it is doing, in a page it shares with its parent (mapped before the
/// fork): when the child does not finish in time, the parent's timeout says what it was doing
/// ("counting: 400,000 of 1,000,000 objects read") rather than guessing that it blocked.
///
/// The child writes with ``report(_:)`` (a no-op outside a forked child of
/// ``ForkedProcess/run(timeout:standardError:trace:cancellation:body:)``); the parent reads the last
/// text once it has killed the child. A sequence number, odd while the child writes, keeps the
/// parent from reading half a text.
package enum ForkedProgress {
  /// The page's size: an 8-byte sequence number, a 4-byte length, then the text.
  static let pageSize = 4096
  static let textOffset = 12
  /// The longest text kept (longer ones are cut at a character's start).
  static let capacity = pageSize - textOffset

  /// The shared page of the call this process is the child of; nil in a parent. Written only in
  /// the child, which has a single thread, right after the fork.
  nonisolated(unsafe) static var page: UnsafeMutableRawPointer?

  /// In a forked child: says what it is doing now. Elsewhere it does nothing.
  /// - Parameter text: a short sentence, without the time ("walking 1,000,000 objects").
  package static func report(_ text: String) {
    guard let page else { return }
    // Whole scalars only, up to the capacity.
    var utf8: [UInt8] = []
    for scalar in text.unicodeScalars {
      let bytes = Array(String(scalar).utf8)
      guard utf8.count + bytes.count <= capacity else { break }
      utf8 += bytes
    }
    let sequence = page.load(as: UInt64.self)
    page.storeBytes(of: sequence | 1, as: UInt64.self)
    utf8.withUnsafeBytes { bytes in
      if let base = bytes.baseAddress { (page + textOffset).copyMemory(from: base, byteCount: bytes.count) }
    }
    page.storeBytes(of: UInt32(utf8.count), toByteOffset: 8, as: UInt32.self)
    page.storeBytes(of: (sequence | 1) + 1, as: UInt64.self)
  }

  #if canImport(Glibc) || canImport(Darwin)
    /// A page shared with the children forked after it, zeroed; nil when it cannot be mapped (the
    /// call goes on without one).
    static func makePage() -> UnsafeMutableRawPointer? {
      let mapped = mmap(nil, pageSize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0)
      guard let mapped, mapped != MAP_FAILED else { return nil }
      return mapped
    }

    static func release(_ page: UnsafeMutableRawPointer) { munmap(page, pageSize) }

    /// The child's last text on `page`, or nil when it wrote none (or was writing one when it was
    /// stopped).
    static func text(on page: UnsafeMutableRawPointer) -> String? {
      let sequence = page.load(as: UInt64.self)
      guard sequence != 0, sequence & 1 == 0 else { return nil }
      let length = min(Int(page.load(fromByteOffset: 8, as: UInt32.self)), capacity)
      let text = String(
        decoding: UnsafeRawBufferPointer(start: page + textOffset, count: length), as: UTF8.self)
      guard page.load(as: UInt64.self) == sequence, !text.isEmpty else { return nil }
      return text
    }
  #endif
}
