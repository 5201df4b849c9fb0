internal import Testing
internal import XCTest

/// Records a test failure at the caller's location: a Swift Testing issue inside a Swift Testing
/// test, an XCTest failure otherwise.
func recordIssue(
  _ message: String,
  fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
) {
  if Test.current != nil {
    Issue.record(
      Comment(rawValue: message),
      sourceLocation: SourceLocation(
        fileID: String(describing: fileID), filePath: String(describing: filePath), line: Int(line),
        column: Int(column)))
  } else {
    XCTFail(message, file: filePath, line: line)
  }
}
