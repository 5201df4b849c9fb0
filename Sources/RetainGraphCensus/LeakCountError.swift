public import RetainGraph

/// Why ``HeapCensus/leaks(since:timeout:)`` or ``HeapCensus/leaks(in:timeout:)`` made no report: an
/// empty report would read as "no leaked cycles" when none could be looked for.
///
/// ```swift
/// do {
///   let report = try HeapCensus.leaks(in: scope)
///   #expect(report.isEmpty, "\(report)")
/// } catch {
///   Issue.record("no leaked cycles were looked for: \(error)")
/// }
/// ```
///
/// New cases may be added in a minor version: a `switch` over the error needs a `default:`.
public enum LeakCountError: Error, CustomStringConvertible, Sendable, Equatable {
  /// This process's `swift_allocObject` is not the census's (the platform's linker did not
  /// interpose it): the census recorded nothing (``HeapCensus/isAvailable``).
  case censusUnavailable
  /// The census was never started in this process (``HeapCensus/start(recordingBacktraces:)``,
  /// ``HeapCensus/run(recordingBacktraces:_:)`` or ``LeakScope/run(recordingBacktraces:_:)``): it recorded nothing.
  case censusNeverStarted
  /// The scope's report was asked for, but this process has no Swift task-local lookup
  /// (`swift_task_localValueGet`), so no allocation could be marked with its leak scope
  /// (``LeakScope/isAvailable``).
  case scopesUnavailable
  /// The forked child that counts failed (crashed, timed out, sent something unreadable).
  case countFailed(ForkedWalkError)

  /// Why nothing could be looked for, when that is so (before any count), in the order the
  /// checks are made: a census that cannot record, then one that never started, then scopes.
  /// - Parameters:
  ///   - censusAvailable: ``HeapCensus/isAvailable``.
  ///   - censusStarted: whether the census was ever started.
  ///   - scopesAvailable: ``LeakScope/isAvailable``, for a scope's report; nil for the whole census.
  /// - Returns: the error, or nil when the count can look.
  static func blindness(censusAvailable: Bool, censusStarted: Bool, scopesAvailable: Bool?) -> Self? {
    if !censusAvailable { return .censusUnavailable }
    if !censusStarted { return .censusNeverStarted }
    if scopesAvailable == false { return .scopesUnavailable }
    return nil
  }

  public var description: String {
    switch self {
    case .censusUnavailable:
      "the heap census could not interpose the runtime's allocation in this process, so it recorded nothing"
    case .censusNeverStarted:
      "the heap census was never started in this process, so it recorded nothing (start it before the code "
        + "under test allocates: HeapCensus.start(), HeapCensus.run { }, or LeakScope().run { })"
    case .scopesUnavailable:
      "this process has no Swift task-local lookup (swift_task_localValueGet), so no allocation could be "
        + "marked as made in a leak scope"
    case .countFailed(let error):
      "the count failed: \(error)"
    }
  }
}
