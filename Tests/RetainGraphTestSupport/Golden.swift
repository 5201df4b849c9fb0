internal import Foundation
internal import Testing
internal import XCTest

// Golden files: a text a user reads is compared whole against an expected file committed beside the
// tests, modelled on swift-snapshot-testing's `verifySnapshot` / `assertSnapshot` and its record mode.
//
// The expected file of `name` asserted from `Tests/T/FooTests.swift` is
// `Tests/T/__Snapshots__/FooTests/name.ext`. Set `RETAIN_GRAPH_RECORD=1` (`make record-golden`) to
// write every expected file from the actual texts; each write is reported as an issue, so a recording
// run never passes silently. Review the recorded files with `git diff`, then run the tests again.

/// The environment variable that turns record mode on when set to `1`.
package let goldenRecordVariable = "RETAIN_GRAPH_RECORD"

/// Compares `actual` whole with its expected file, or records it in record mode.
///
/// - Parameters:
///   - actual: The text under test.
///   - name: The expected file's name without its extension, unique within the calling test file.
///   - pathExtension: The expected file's extension (`txt`, `dot`, `json`).
///   - filePath: The calling test file; its expected files are in `__Snapshots__/<file name>/` beside it.
/// - Returns: `nil` when the texts are equal; otherwise why not (a line diff and the expected file's
///   path), that the file is missing and how to record it, or that it was just recorded.
package func verifyGolden(
  _ actual: String, named name: String, pathExtension: String = "txt", filePath: StaticString = #filePath
) -> String? {
  let actual = withoutTestFileLines(actual)
  let file = goldenFile(named: name, pathExtension: pathExtension, filePath: filePath)
  let existing = try? String(contentsOf: file, encoding: .utf8)
  if ProcessInfo.processInfo.environment[goldenRecordVariable] == "1" {
    do {
      try FileManager.default.createDirectory(
        at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(actual.utf8).write(to: file, options: .atomic)
    } catch {
      return "Could not record the golden file \(file.path): \(error)"
    }
    let change = existing == nil ? "new" : existing == actual ? "unchanged" : "changed"
    return "Recorded the golden file \(file.path) (\(change)), because \(goldenRecordVariable)=1. "
      + "Review it with git diff, then run the tests without \(goldenRecordVariable)."
  }
  guard let expected = existing else {
    return "No golden file at \(file.path). To record it from the actual text, run "
      + "`make record-golden` (\(goldenRecordVariable)=1 swift test) and review the new file."
  }
  guard expected != actual else { return nil }
  return "The text does not match the golden file \(file.path):\n"
    + lineDiff(expected: expected, actual: actual)
    + "\nIf the new text is right, re-record with `make record-golden` (\(goldenRecordVariable)=1 swift test)."
}

/// `text` with the line (and column) of every source location in a test file written as `#`
/// (`Tests/RetainGraphTests/ClosureTests.swift:#`): a fixture declared in a test file moves whenever a
/// test is added above it, and its goldens would then fail for no change in what they check. The
/// samples' locations (`Samples/…`) stay whole; `SourceLocationTests` checks every one of them
/// against the sample's text.
package func withoutTestFileLines(_ text: String) -> String {
  guard text.contains("Tests/") else { return text }
  var result = ""
  var rest = Substring(text)
  while let start = rest.range(of: "Tests/") {
    result += rest[..<start.lowerBound]
    // The path: up to `.swift:` followed by digits, without a space or a line break in between.
    let path = rest[start.lowerBound...].prefix { !" \n\t\"'()".contains($0) }
    guard let swift = path.range(of: ".swift:"), path[swift.upperBound...].first?.isNumber == true else {
      result += rest[start]
      rest = rest[start.upperBound...]
      continue
    }
    result += path[..<swift.upperBound] + "#"
    var after = path[swift.upperBound...].drop { $0.isNumber }
    if after.first == ":", after.dropFirst().first?.isNumber == true {
      after = after.dropFirst().drop { $0.isNumber }
    }
    result += after
    rest = rest[path.endIndex...]
  }
  return result + rest
}

/// Compares `actual` whole with its expected file and reports a failure at the caller when they differ
/// (or when it was recorded): a Swift Testing issue inside a Swift Testing test, an XCTest failure
/// otherwise.
///
/// - Parameters:
///   - actual: The text under test.
///   - name: The expected file's name without its extension, unique within the calling test file.
///   - pathExtension: The expected file's extension (`txt`, `dot`, `json`).
///   - fileID: The caller's file ID.
///   - filePath: The calling test file; its expected files are in `__Snapshots__/<file name>/` beside it.
///   - line: The caller's line.
///   - column: The caller's column.
package func assertGolden(
  _ actual: String,
  named name: String,
  pathExtension: String = "txt",
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column
) {
  guard let failure = verifyGolden(actual, named: name, pathExtension: pathExtension, filePath: filePath)
  else { return }
  if Test.current != nil {
    Issue.record(
      Comment(rawValue: failure),
      sourceLocation: SourceLocation(
        fileID: "\(fileID)", filePath: "\(filePath)", line: Int(line), column: Int(column)))
  } else {
    XCTFail(failure, file: filePath, line: line)
  }
}

/// `Tests/T/FooTests.swift`, `name`, `ext` → `Tests/T/__Snapshots__/FooTests/name.ext`.
func goldenFile(named name: String, pathExtension: String, filePath: StaticString) -> URL {
  let testFile = URL(fileURLWithPath: "\(filePath)")
  return testFile.deletingLastPathComponent()
    .appendingPathComponent("__Snapshots__")
    .appendingPathComponent(testFile.deletingPathExtension().lastPathComponent)
    .appendingPathComponent("\(name).\(pathExtension)")
}

/// The lines that differ, in order, numbered as in their own text (`-` expected, `+` actual), at most
/// `limit` of them.
func lineDiff(expected: String, actual: String, limit: Int = 20) -> String {
  let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
  let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
  let difference = new.difference(from: old)
  var removed = Set<Int>()
  var inserted = Set<Int>()
  for change in difference {
    switch change {
    case .remove(let offset, _, _): removed.insert(offset)
    case .insert(let offset, _, _): inserted.insert(offset)
    }
  }
  let width = String(max(old.count, new.count)).count
  func number(_ index: Int) -> String {
    String(repeating: " ", count: width - String(index + 1).count) + String(index + 1)
  }
  var lines: [String] = []
  var (oldIndex, newIndex) = (0, 0)
  while oldIndex < old.count || newIndex < new.count {
    if removed.contains(oldIndex) {
      lines.append("−\(number(oldIndex))│\(old[oldIndex])")
      oldIndex += 1
    } else if inserted.contains(newIndex) {
      lines.append("+\(number(newIndex))│\(new[newIndex])")
      newIndex += 1
    } else {
      oldIndex += 1
      newIndex += 1
    }
  }
  let header =
    "expected (−) \(old.count) lines, actual (+) \(new.count) lines; first difference at line "
    + "\(min(removed.min() ?? .max, inserted.min() ?? .max) + 1):"
  let shown = lines.prefix(limit).joined(separator: "\n")
  let more = lines.count > limit ? "\n… and \(lines.count - limit) more differing lines" : ""
  return header + "\n" + shown + more
}

/// This package's checkout (resolved), which failure messages name in the command that draws a graph
/// (`swift run --package-path CHECKOUT retain-graph render …`): goldens write it `$CHECKOUT`.
package let packageCheckout: String = {
  // Tests/RetainGraphTestSupport/Golden.swift → the checkout.
  var checkout = URL(fileURLWithPath: #filePath)
  for _ in 0..<3 { checkout.deleteLastPathComponent() }
  return checkout.resolvingSymlinksInPath().path
}()

/// The one place where a text under test loses what depends on the machine before it is compared with
/// a golden file: every occurrence of each `path` (a temporary folder, an artifacts folder) becomes its
/// placeholder, longest path first, so that `/tmp/x/artifacts` never leaves `/tmp/x` half-replaced.
///
/// - Parameters:
///   - text: The text under test.
///   - paths: Each machine-dependent path and the placeholder that stands for it (`$ARTIFACTS`).
///     This package's checkout is always one of them: ``packageCheckout`` becomes `$CHECKOUT`.
/// - Returns: The text with every path replaced.
package func normalizingPaths(_ text: String, _ paths: [String: String]) -> String {
  var result = text
  let paths = paths.merging([packageCheckout: "$CHECKOUT"]) { given, _ in given }
  for (path, placeholder) in paths.sorted(by: { $0.key.count > $1.key.count }) where !path.isEmpty {
    result = result.replacingOccurrences(of: path, with: placeholder)
  }
  return result
}
