public import RetainGraph
public import XCTest

extension XCTestCase {
  /// Checks, once the test is over, that `object` has been deallocated; fails at the caller's line
  /// with why it is still alive (the retain cycle, the path, the fix) when it is not.
  ///
  /// The check runs in a teardown block, after the test's own teardown blocks and before
  /// `tearDown()`. For an object that a property of the test holds, use
  /// ``trackForLeaks(_:after:timeout:options:fileID:filePath:line:column:)``.
  /// - Parameters:
  ///   - object: the object to track; only a weak reference to it is kept.
  ///   - timeout: how long to wait for it to go once the test is over (default 1 second).
  ///   - options: limits and filters for the walk that explains a survivor.
  ///   - fileID: the caller's file ID.
  ///   - filePath: the caller's file path.
  ///   - line: the caller's line.
  ///   - column: the caller's column.
  public func trackForLeaks(
    _ object: AnyObject,
    timeout: Duration = .seconds(1),
    options: GraphOptions = GraphOptions(),
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    checkAfterTest(
      WeakProbe(object), release: nil, timeout: timeout, options: options,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Checks, once the test is over, that `object` is deallocated after `release` ran: for an object a
  /// property of the test holds, `trackForLeaks(sut, after: { self.sut = nil })`.
  ///
  /// - Parameters:
  ///   - object: the object to track; only a weak reference to it is kept.
  ///   - release: drops the test's own references to the object; runs in a teardown block.
  ///   - timeout: how long to wait for it to go after `release` (default 1 second).
  ///   - options: limits and filters for the walk that explains a survivor.
  ///   - fileID: the caller's file ID.
  ///   - filePath: the caller's file path.
  ///   - line: the caller's line.
  ///   - column: the caller's column.
  public func trackForLeaks(
    _ object: AnyObject,
    after release: @escaping () -> Void,
    timeout: Duration = .seconds(1),
    options: GraphOptions = GraphOptions(),
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    checkAfterTest(
      WeakProbe(object), release: release, timeout: timeout, options: options,
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Registers the teardown block that runs `release`, waits for the object to go, and records why
  /// it did not.
  private func checkAfterTest(
    _ probe: WeakProbe, release: (() -> Void)?, timeout: Duration, options: GraphOptions, site: CallSite
  ) {
    addTeardownBlock {
      release?()
      guard !waitUntil(timeout: timeout, { !probe.isAlive }) else { return }
      survivorFailure(
        probe, timeout: timeout, options: options, subject: "\(probe.typeName) (tracked for leaks)",
        after: release == nil ? "the test ended" : "the test ended and `after:` released it"
      )?.record(at: site)
    }
  }
}
