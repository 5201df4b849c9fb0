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

  /// The shared page's parts, typed once when it is mapped: no raw read of the page afterwards.
  struct Page {
    let start: UnsafeMutableRawPointer
    let sequence: UnsafeMutablePointer<UInt64>
    let length: UnsafeMutablePointer<UInt32>
    let text: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutableRawPointer) {
      self.start = start
      sequence = start.bindMemory(to: UInt64.self, capacity: 1)
      length = (start + 8).bindMemory(to: UInt32.self, capacity: 1)
      text = (start + ForkedProgress.textOffset).bindMemory(to: UInt8.self, capacity: ForkedProgress.capacity)
    }
  }

  /// The shared page of the call this process is the child of; nil in a parent. Written only in
  /// the child, which has a single thread, right after the fork.
  nonisolated(unsafe) static var page: Page?

  /// In a forked child: says what it is doing now. Elsewhere it does nothing (and does not make the
  /// text).
  /// - Parameter text: a short sentence, without the time ("walking 1,000,000 objects").
  package static func report(_ text: @autoclosure () -> String) {
    guard let page else { return }
    let text = text()
    // Whole scalars only, up to the capacity.
    var utf8: [UInt8] = []
    for scalar in text.unicodeScalars {
      let bytes = Array(String(scalar).utf8)
      guard utf8.count + bytes.count <= capacity else { break }
      utf8 += bytes
    }
    let sequence = page.sequence.pointee
    page.sequence.pointee = sequence | 1
    page.text.update(from: utf8, count: utf8.count)
    page.length.pointee = UInt32(utf8.count)
    page.sequence.pointee = (sequence | 1) + 1
  }

  /// In a forked child: says it is doing `text` while `body` runs (a reader that may fault on memory
  /// another thread was changing at the fork: a crash then names it), then says again what it said
  /// before. Elsewhere it runs `body` alone.
  package static func during<Result>(
    _ text: @autoclosure () -> String, _ body: () throws -> Result
  ) rethrows -> Result {
    guard let page else { return try body() }
    #if canImport(Glibc) || canImport(Darwin)
      let before = Self.text(on: page)
    #else
      let before: String? = nil
    #endif
    report(text())
    defer { report(before ?? "") }
    return try body()
  }

  #if canImport(Glibc) || canImport(Darwin)
    /// A page shared with the children forked after it, zeroed; nil when it cannot be mapped (the
    /// call goes on without one).
    static func makePage() -> Page? {
      let mapped = mmap(nil, pageSize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0)
      guard let mapped, mapped != MAP_FAILED else { return nil }
      return Page(mapped)
    }

    static func release(_ page: Page) { munmap(page.start, pageSize) }

    /// The child's last text on `page`, or nil when it wrote none (or was writing one when it was
    /// stopped).
    static func text(on page: Page) -> String? {
      let sequence = page.sequence.pointee
      guard sequence != 0, sequence & 1 == 0 else { return nil }
      let length = min(Int(page.length.pointee), capacity)
      let text = String(decoding: UnsafeBufferPointer(start: page.text, count: length), as: UTF8.self)
      guard page.sequence.pointee == sequence, !text.isEmpty else { return nil }
      return text
    }
  #endif
}
