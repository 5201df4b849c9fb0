package import Foundation

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// Writes files so that they appear complete or not at all.
package enum AtomicFile {
  /// Writes `data` to a new temporary file next to `url`, then renames it to `url`.
  /// - Throws: ``RenderingError`` naming the file and the system's reason.
  package static func write(_ data: Data, to url: URL) throws(RenderingError) {
    let path = url.path
    let directory = url.deletingLastPathComponent().path
    let temporary = "\(directory)/.\(url.lastPathComponent).\(UUID().uuidString).tmp"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw failure(path) }
    var written = 0
    var succeeded = true
    data.withUnsafeBytes { buffer in
      while written < buffer.count, let base = buffer.baseAddress {
        let count = posixWrite(descriptor, base + written, buffer.count - written)
        if count < 0 {
          if errno == EINTR { continue }
          succeeded = false
          return
        }
        written += count
      }
    }
    let error = succeeded ? nil : failure(path)
    close(descriptor)
    if let error {
      unlink(temporary)
      throw error
    }
    guard rename(temporary, path) == 0 else {
      let error = failure(path)
      unlink(temporary)
      throw error
    }
  }

  private static func failure(_ path: String) -> RenderingError {
    RenderingError("cannot write \(path): \(String(cString: strerror(errno)))")
  }
}

/// `write(2)`, out of reach of `AtomicFile.write`'s name.
private func posixWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, bytes, count)
}
