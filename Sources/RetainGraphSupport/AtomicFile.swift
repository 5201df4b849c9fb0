package import Foundation

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// Writes files so that they appear complete or not at all, without replacing what is not a file.
///
/// - A regular file (or a path that does not exist yet) is written to a temporary file in the same
///   directory, then renamed over it: a reader sees the old contents or the new, never half. An
///   existing file keeps its permission bits (and, when the process may, its owner).
/// - A symbolic link is followed: its final target is written (atomically when that is a regular
///   file) and the link stays a link.
/// - A device (`/dev/null`, `/dev/stdout`, a terminal), a FIFO or a socket is opened and written
///   directly: renaming a file over it would replace the device node or leave a FIFO's reader with
///   nothing.
/// - A directory is an error.
///
/// Rendering and the command line's `--output` write through it (both turn a ``Failure`` into their
/// own error, with its text).
package enum AtomicFile {
  /// A file could not be written: the path as given and the system's reason.
  package struct Failure: Error, CustomStringConvertible, Equatable, Sendable {
    /// The path as the caller gave it (not where its links lead).
    package var path: String
    /// Why, in words (`Permission denied`, `it is a directory`).
    package var reason: String

    package init(path: String, reason: String) {
      self.path = path
      self.reason = reason
    }

    /// `cannot write PATH: REASON`.
    package var description: String { "cannot write \(path): \(reason)" }
  }

  /// The longest file name the temporary name may have, in bytes (`NAME_MAX` on Linux and Darwin).
  static let nameLimit = 255

  /// Writes `data` to `url` as described in ``AtomicFile``.
  /// - Throws: a ``Failure`` naming the file and the system's reason.
  package static func write(_ data: Data, to url: URL) throws(Failure) {
    let path = url.path
    let target = try resolvedTarget(of: path)
    var status = stat()
    if stat(target, &status) == 0 {
      switch status.st_mode & S_IFMT {
      case S_IFREG:
        try replaceRegularFile(target, with: data, keeping: status, reportedAs: path)
      case S_IFDIR:
        throw Failure(path: path, reason: "it is a directory")
      default:
        try writeDirectly(data, to: target, reportedAs: path)
      }
    } else if errno == ENOENT {
      try replaceRegularFile(target, with: data, keeping: nil, reportedAs: path)
    } else {
      throw failure(path)
    }
  }

  /// The path `path` names after following every symbolic link of its last component (a link to a
  /// link, a relative link). A dangling link gives the path it points to, which is then created.
  static func resolvedTarget(of path: String) throws(Failure) -> String {
    var current = path
    // Linux gives up after 40 links (ELOOP); so does this.
    for _ in 0..<40 {
      var status = stat()
      guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return current }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let count = readlink(current, &buffer, buffer.count - 1)
      guard count >= 0 else { throw failure(path) }
      let destination = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      if destination.hasPrefix("/") {
        current = destination
      } else {
        current = directory(of: current) + "/" + destination
      }
    }
    errno = ELOOP
    throw failure(path)
  }

  /// `path` without its last component (`.` for a bare name).
  private static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// `path`'s last component.
  private static func name(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return path }
    return String(path[path.index(after: slash)...])
  }

  /// The temporary file beside `path`: `.NAME.XXXXXXXXXXXX.tmp`, `NAME` shortened (on a character
  /// boundary) so that the whole name stays within ``nameLimit`` bytes.
  static func temporaryName(for path: String) -> String {
    let suffix = "." + String(UInt64.random(in: 0...UInt64.max), radix: 16) + ".tmp"
    var stem = name(of: path)
    while 1 + stem.utf8.count + suffix.utf8.count > nameLimit { stem.removeLast() }
    return directory(of: path) + "/." + stem + suffix
  }

  /// Writes a temporary file beside `target` and renames it over `target`. The new file gets
  /// `existing`'s permission bits and owner when there was a file, else the usual `0666 & ~umask`.
  private static func replaceRegularFile(
    _ target: String, with data: Data, keeping existing: stat?, reportedAs path: String
  ) throws(Failure) {
    var temporary = temporaryName(for: target)
    var descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
    // A name taken by chance: draw another once.
    if descriptor < 0 && errno == EEXIST {
      temporary = temporaryName(for: target)
      descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
    }
    guard descriptor >= 0 else {
      guard existing != nil else { throw failure(path) }
      // The file exists (/proc/version, say): what failed is the temporary file beside it.
      throw Failure(
        path: path,
        reason: "cannot create a file in \(directory(of: target)) to replace it with "
          + "(\(String(cString: strerror(errno))))")
    }
    var error: Failure? = nil
    if let existing {
      // Keep the owner when allowed (root can; anyone else keeps their own), then the mode: a 0600
      // file stays 0600. fchmod after fchown, which may clear set-id bits.
      _ = fchown(descriptor, existing.st_uid, existing.st_gid)
      if fchmod(descriptor, existing.st_mode & 0o7777) != 0 { error = failure(path) }
    }
    if error == nil, !writeAll(data, to: descriptor) { error = failure(path) }
    if error == nil, fsync(descriptor) != 0, errno != EINVAL { error = failure(path) }
    if close(descriptor) != 0, error == nil { error = failure(path) }
    if let error {
      unlink(temporary)
      throw error
    }
    guard rename(temporary, target) == 0 else {
      let error = failure(path)
      unlink(temporary)
      throw error
    }
  }

  /// Opens what `target` names (a device, a FIFO: blocks until it has a reader) and writes to it.
  private static func writeDirectly(_ data: Data, to target: String, reportedAs path: String)
    throws(Failure)
  {
    let descriptor = open(target, O_WRONLY | O_CLOEXEC | O_NOCTTY)
    guard descriptor >= 0 else { throw failure(path) }
    let written = writeAll(data, to: descriptor)
    let error = written ? nil : failure(path)
    close(descriptor)
    if let error { throw error }
  }

  /// Writes all of `data` to `descriptor`, retrying interrupted and partial writes.
  /// - Returns: false when a write failed (`errno` says why).
  package static func writeAll(_ data: Data, to descriptor: Int32) -> Bool {
    data.withUnsafeBytes { buffer in
      var written = 0
      while written < buffer.count, let base = buffer.baseAddress {
        let count = posixWrite(descriptor, base + written, buffer.count - written)
        if count < 0 {
          if errno == EINTR { continue }
          return false
        }
        written += count
      }
      return true
    }
  }

  private static func failure(_ path: String) -> Failure {
    Failure(path: path, reason: String(cString: strerror(errno)))
  }
}

/// `write(2)`, out of reach of `AtomicFile.write`'s name.
private func posixWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, bytes, count)
}
