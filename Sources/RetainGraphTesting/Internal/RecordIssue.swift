internal import Testing
internal import XCTest

/// Whether the caller runs inside a Swift Testing test (else it is XCTest).
var isInSwiftTesting: Bool { Test.current != nil }

/// Records a test failure at `site`: a Swift Testing issue (with `attachments` attached to the test)
/// inside a Swift Testing test, an XCTest failure otherwise (XCTest on Linux has no attachments).
func recordIssue(_ message: String, attachments: [GraphAttachment.File], at site: CallSite) {
  if isInSwiftTesting {
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
