internal import RetainGraphSupport

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// Where a fix's declaration is written: the closure to capture `[weak self]` in, the stored
/// property to make `weak`. Found in the debug information of the loaded images (see
/// `SourceDeclarations+Images.swift`, README "Source locations"); nil whenever it does not say, so
/// that a stripped binary or a build without debug information says nothing rather than guess.
package enum SourceDeclarations {
  /// A declaration's place: the file's path (absolute, as the debug information gives it), its line
  /// and, when known, its column (from 1, counting UTF-8 bytes).
  package struct Location: Sendable, Hashable {
    package var file: String
    package var line: Int
    package var column: Int?

    package init(file: String, line: Int, column: Int?) {
      self.file = file
      self.line = line
      self.column = column
    }
  }

  /// The path and the names of the types it is nested in, outermost first, of a type named as
  /// `TypeNames.qualified` names it (`App.Outer.Inner<Swift.Int>` → `["Outer", "Inner"]`); nil for a
  /// local type (declared in a function: `(unknown context at …)`) or a name not of that form.
  package static func typePath(ofQualifiedName name: String) -> [String]? {
    var plain = ""
    var depth = 0
    for character in SymbolNames.withoutPrivateDiscriminators(name) {
      if character == "<" {
        depth += 1
      } else if character == ">" {
        depth -= 1
      } else if depth == 0 {
        plain.append(character)
      }
    }
    guard depth == 0, !plain.contains("("), !plain.contains(" ") else { return nil }
    let components = plain.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard components.count >= 2, !components.contains(where: \.isEmpty) else { return nil }
    return Array(components.dropFirst())
  }

  /// `path` relative to the root of the package it lies in (the nearest directory above it with a
  /// `Package.swift`), or `path` itself when it lies in none.
  package static func packageRelative(_ path: String) -> String {
    guard path.hasPrefix("/") else { return path }
    var directory = Substring(path)
    while let slash = directory.lastIndex(of: "/") {
      directory = directory[..<slash]
      let root = String(directory)
      let isPackage = packageRoots.withLock { known in
        if let answer = known[root] { return answer }
        let answer = access(root.isEmpty ? "/Package.swift" : "\(root)/Package.swift", F_OK) == 0
        known[root] = answer
        return answer
      }
      if isPackage { return String(path.dropFirst(directory.count + 1)) }
    }
    return path
  }

  private static let packageRoots = ForkSafeMutex<[String: Bool]>([:])

  /// The bytes of the source file at `path`, read once per process (nil when it cannot be read).
  static func sourceText(at path: String) -> [UInt8]? {
    if let known = sourceTexts.withLock({ $0[path] }) { return known }
    let text = readFile(path)
    sourceTexts.withLock { $0[path] = .some(text) }
    return text
  }

  private static let sourceTexts = ForkSafeMutex<[String: [UInt8]?]>([:])

  private static func readFile(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
      if count <= 0 { break }
      bytes += buffer[0..<count]
      if bytes.count > 16 << 20 { return nil }  // no Swift source is this long
    }
    return ferror(file) == 0 ? bytes : nil
  }
}
