public import RetainGraph
public import Testing

/// A Swift Testing trait that checks, after each test, that every object the test passed to
/// ``track(_:fileID:filePath:line:column:)`` has been deallocated.
///
/// ```swift
/// @Test(.detectsLeaks) func closingTheProfile() {
///   let module = track(ProfileModule.make(user: .preview))
///   module.close()
/// }
/// ```
/// On a suite, every test in it (and in nested suites) gets its own check. A survivor is reported at
/// its `track` call with why it is alive: the retain cycle, the path, the fix.
public struct LeakDetectionTrait: TestTrait, SuiteTrait, TestScoping {
  /// How long to wait, after the test body returns, for tracked objects to go.
  public var timeout: Duration
  /// Limits and filters for the walk that explains a survivor.
  public var options: GraphOptions

  /// Creates the trait; prefer ``Testing/Trait/detectsLeaks`` and
  /// ``Testing/Trait/detectsLeaks(timeout:options:)``.
  /// - Parameters:
  ///   - timeout: how long to wait for tracked objects to go.
  ///   - options: limits and filters for the walk that explains a survivor.
  public init(timeout: Duration = .seconds(1), options: GraphOptions = GraphOptions()) {
    self.timeout = timeout
    self.options = options
  }

  /// True: on a suite, the trait applies to every test in it.
  public var isRecursive: Bool { true }

  /// The trait itself for each run of a test function; nothing for a suite as a whole.
  /// - Parameters:
  ///   - test: the test or suite.
  ///   - testCase: the test case about to run, or nil.
  /// - Returns: the scope provider, or nil.
  public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
    test.isSuite || testCase == nil ? nil : self
  }

  /// Runs the test with a fresh registry for ``track(_:fileID:filePath:line:column:)``, then checks
  /// that everything tracked is gone (also when the test throws).
  /// - Parameters:
  ///   - test: the test.
  ///   - testCase: the test case.
  ///   - function: the test body.
  /// - Throws: what the test body throws.
  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    let registry = LeakRegistry()
    var failure: (any Error)?
    do {
      try await LeakRegistry.$current.withValue(registry) { try await function() }
    } catch {
      failure = error
    }
    await registry.check(timeout: timeout, options: options)
    if let failure { throw failure }
  }
}

extension Trait where Self == LeakDetectionTrait {
  /// Checks after the test that every object passed to ``track(_:fileID:filePath:line:column:)``
  /// was deallocated (waiting up to 1 second).
  public static var detectsLeaks: Self { LeakDetectionTrait() }

  /// Checks after the test that every object passed to ``track(_:fileID:filePath:line:column:)``
  /// was deallocated.
  /// - Parameters:
  ///   - timeout: how long to wait for tracked objects to go after the test body returns.
  ///   - options: limits and filters for the walk that explains a survivor.
  /// - Returns: the trait.
  public static func detectsLeaks(
    timeout: Duration = .seconds(1), options: GraphOptions = GraphOptions()
  ) -> Self {
    LeakDetectionTrait(timeout: timeout, options: options)
  }
}

/// Tracks `object` for the rest of the running test: once the test body returns, the test's
/// `.detectsLeaks` trait checks that it was deallocated, and reports it here if not.
///
/// Outside a test with the trait (on it or on its suite), records an issue that says so.
/// - Parameters:
///   - object: the object to track; only a weak reference to it is kept.
///   - fileID: the caller's file ID.
///   - filePath: the caller's file path.
///   - line: the caller's line.
///   - column: the caller's column.
/// - Returns: `object`, so that `let sut = track(Presenter())` reads naturally.
@discardableResult
public func track<Object: AnyObject>(
  _ object: Object,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column
) -> Object {
  let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  guard let registry = LeakRegistry.current else {
    recordIssue(
      "track(_:) needs the .detectsLeaks trait: \(type(of: object)) is not tracked. Add it to the test "
        + "or its suite: @Test(.detectsLeaks) or @Suite(.detectsLeaks). (In XCTest, use trackForLeaks(_:).)",
      attachments: [], at: site)
    return object
  }
  registry.track(object, at: site)
  return object
}
