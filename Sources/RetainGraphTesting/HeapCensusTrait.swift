internal import RetainGraph
public import Testing

/// A Swift Testing trait that runs each test under the heap census: started before the test,
/// stopped after it (starts and stops nest, so parallel tests can each use it).
///
/// ```swift
/// import RetainGraphCensus  // links the census into the test program
/// import RetainGraphTesting
/// import Testing
///
/// @Test(.heapCensus) func feedDoesNotGrow() {
///   assertNoGrowth(iterations: 5) { Feed.shared.reload() }
/// }
/// ```
///
/// The census is the `RetainGraphCensus` product: the test target depends on it and imports it
/// once. A test program that does not link it fails each test with this trait, saying so (the test
/// still runs).
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
    try await provideScope(census: CensusRegistration.registered, for: test, performing: function)
  }

  /// ``provideScope(for:testCase:performing:)`` with the census the program links, if any.
  func provideScope(
    census: (any CensusProvider)?, for test: Test, performing function: @Sendable () async throws -> Void
  ) async throws {
    guard let census = linked(census, for: "The .heapCensus trait", in: test) else {
      return try await function()
    }
    try await census.run(recordingBacktraces: recordingBacktraces) { try await function() }
  }
}

/// `census`, or nil after recording an issue on `test` that `trait` ("The .heapCensus trait") needs the
/// census the program does not link (the test then runs without it).
func linked(_ census: (any CensusProvider)?, for trait: String, in test: Test) -> (any CensusProvider)? {
  if census == nil {
    Issue.record(
      Comment(rawValue: CensusRegistration.unlinkedCensusMessage(for: trait)),
      sourceLocation: test.sourceLocation)
  }
  return census
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
