internal import CRetainGraphCensus
internal import RetainGraph
public import Testing

/// A Swift Testing trait that runs each test under the heap census: started before the test,
/// stopped after it (starts and stops nest, so parallel tests can each use it).
///
/// ```swift
/// @Test(.heapCensus) func feedDoesNotGrow() {
///   assertNoGrowth(iterations: 5) { Feed.shared.reload() }
/// }
/// ```
public struct HeapCensusTrait: TestTrait, SuiteTrait, TestScoping {
  /// Whether each allocation's call stack is recorded too.
  public var recordingBacktraces: Bool

  /// Creates the trait; prefer ``Testing/Trait/heapCensus`` and
  /// ``Testing/Trait/heapCensus(recordingBacktraces:)``.
  /// - Parameter recordingBacktraces: also record each allocation's call stack.
  public init(recordingBacktraces: Bool = false) {
    self.recordingBacktraces = recordingBacktraces
  }

  /// True: on a suite, every test in it runs under the census.
  public var isRecursive: Bool { true }

  /// The trait for each run of a test function; nothing for a suite as a whole.
  /// - Parameters:
  ///   - test: the test or suite.
  ///   - testCase: the test case about to run, or nil.
  /// - Returns: the scope provider, or nil.
  public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
    test.isSuite || testCase == nil ? nil : self
  }

  /// Runs the test with the census started.
  /// - Parameters:
  ///   - test: the test.
  ///   - testCase: the test case.
  ///   - function: the test body.
  /// - Throws: what the test body throws.
  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    HeapCensus.startScoped(recordingBacktraces: recordingBacktraces)
    defer { rgc_stop(recordingBacktraces ? 1 : 0) }
    try await CensusRegistration.$isInScope.withValue(true) { try await function() }
  }
}

extension Trait where Self == HeapCensusTrait {
  /// Runs the test under the heap census.
  public static var heapCensus: Self { HeapCensusTrait() }

  /// Runs the test under the heap census.
  /// - Parameter recordingBacktraces: also record each allocation's call stack.
  /// - Returns: the trait.
  public static func heapCensus(recordingBacktraces: Bool) -> Self {
    HeapCensusTrait(recordingBacktraces: recordingBacktraces)
  }
}
