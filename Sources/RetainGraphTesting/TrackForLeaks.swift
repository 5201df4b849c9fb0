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
    let testName = name
    addTeardownBlock { [weak self] in
      release?()
      let wait = waitForRelease([probe], timeout: timeout, options: options)
      guard wait != .released else { return }
      let subject = "\(probe.typeName) (tracked for leaks)"
      let moment = release == nil ? "the test ended" : "the test ended and `after:` released it"
      if let self, let object = probe.object, let held = self.heldByTestCase(object, options: options) {
        let (why, graph) = Explanation.ofSurvivor(object, options: options)
        var text =
          "\(subject) \(wait.stillAlive(after: moment)).\n"
          + held.explanation(afterGiven: release != nil)
        if why.hasPrefix("Why: a retain cycle") { text += "\nOnce released, it would still leak. " + why }
        LeakFailure(message: text, graphs: [("retain-graph-\(probe.typeName)", graph)])
          .record(at: site, testName: testName)
        return
      }
      survivorFailure(probe, wait: wait, options: options, subject: subject, after: moment)?
        .record(at: site, testName: testName)
    }
  }

  /// The path from this test case to `object` when the test case itself still holds it (a stored
  /// property, directly or through what it holds).
  private func heldByTestCase(_ object: AnyObject, options: GraphOptions) -> TestCaseHolder? {
    var walkOptions = options
    walkOptions.maxNodes = min(options.maxNodes, 10_000)
    let (graph, objects) = ObjectGraph.walk(self, options: walkOptions)
    guard let id = objects.firstIndex(where: { $0 === object }), let path = graph.path(to: id),
      let first = path.first, path.allSatisfy({ $0.ownership == .strong })
    else { return nil }
    return TestCaseHolder(graph: graph, path: path, property: first.property ?? first.label)
  }
}

/// How a test case holds a tracked object: the references from the test case to it.
private struct TestCaseHolder {
  let graph: ObjectGraph
  let path: [Edge]
  /// The test case's stored property the path starts with.
  let property: String

  func explanation(afterGiven: Bool) -> String {
    let testCase = graph.nodes[graph.root].shortTypeName
    var lines = ["Why: the test case itself still holds it, through its property `\(property)`:"]
    lines += Explanation.lines(for: path, in: graph, indent: "  ")
    if afterGiven {
      lines.append(
        "`after:` ran, but \(testCase).\(property) still holds it: release that reference in `after:` "
          + "too. This is not a leak of the object.")
    } else {
      lines.append(
        "XCTest runs teardown blocks (this check is one) before tearDown(), so a property that tearDown() "
          + "resets still holds the object when the check runs. This is not a leak of the object. Let the "
          + "check release it first with trackForLeaks(_:after:): "
          + "`trackForLeaks(object, after: { self.\(property) = nil })`.")
    }
    return lines.joined(separator: "\n")
  }
}
