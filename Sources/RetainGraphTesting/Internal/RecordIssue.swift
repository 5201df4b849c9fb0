internal import Testing
internal import XCTest

/// Records a test failure at the caller's location: a Swift Testing issue inside a Swift Testing
/// test, an XCTest failure otherwise.
func recordIssue(
  _ message: String,
  fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
) {
  recordIssue(
    message, attachments: [], at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
}

/// Records a test failure at `site`; in Swift Testing, with `attachments` attached to the test.
func recordIssue(_ message: String, attachments: [GraphAttachment.File], at site: CallSite) {
  if Test.current != nil {
    let location = SourceLocation(
      fileID: String(describing: site.fileID), filePath: String(describing: site.filePath),
      line: Int(site.line), column: Int(site.column))
    Issue.record(Comment(rawValue: message), sourceLocation: location)
    for file in attachments {
      Attachment.record(file.contents, named: file.name, sourceLocation: location)
    }
  } else {
    XCTFail(message, file: site.filePath, line: site.line)
  }
}
