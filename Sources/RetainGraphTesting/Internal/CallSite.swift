/// Where a check was written: the caller's `#fileID`, `#filePath`, `#line` and `#column`.
struct CallSite: Sendable {
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt
}
