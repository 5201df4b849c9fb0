public import RetainGraph

/// Builds an object, keeps only a weak reference to it, and waits until it is deallocated.
///
/// Returns as soon as the object is gone; when it is still alive after `timeout`, walks the graph
/// from it and says why: the retain cycle that keeps it (with the path and the fix), or that
/// something outside its graph holds it.
/// - Parameters:
///   - timeout: how long to wait for the object to go (default 1 second).
///   - options: limits and filters for the walk that explains a survivor.
///   - make: builds the object (and may use it); whatever else it creates is released on return.
/// - Returns: the failure (its `description` is the text the `assert…` twin reports), or nil when the object was deallocated in time.
// Disfavoured so that an `await`ed call in async code picks the async twin.
@_disfavoredOverload
public func checkDeallocated<Object: AnyObject>(
  timeout: Duration = .seconds(1),
  options: GraphOptions = GraphOptions(),
  _ make: () throws -> Object
) rethrows -> LeakCheckFailure? {
  try deallocationFailure(timeout: timeout, options: options, make).map(LeakCheckFailure.init)
}

/// The async twin of ``checkDeallocated(timeout:options:_:)-(_,_,()->Object)``, for objects
/// released on other tasks, queues or run loops: suspends while it waits.
/// - Parameters:
///   - timeout: how long to wait for the object to go (default 1 second).
///   - options: limits and filters for the walk that explains a survivor.
///   - isolation: the caller's actor, inferred.
///   - make: builds the object (and may use it).
/// - Returns: the failure (its `description` is the text the `assert…` twin reports), or nil when the object was deallocated in time.
public func checkDeallocated<Object: AnyObject>(
  timeout: Duration = .seconds(1),
  options: GraphOptions = GraphOptions(),
  isolation: isolated (any Actor)? = #isolation,
  _ make: nonisolated(nonsending) () async throws -> Object
) async rethrows -> LeakCheckFailure? {
  try await deallocationFailure(timeout: timeout, options: options, isolation: isolation, make).map(
    LeakCheckFailure.init)
}

/// Fails the current test (XCTest or Swift Testing) at the caller's line when the object that `make`
/// returns is still alive `timeout` after `make` returned, saying why (the cycle, the path, the fix).
///
/// ```swift
/// assertDeallocated { ProfileViewController(user: .preview) }
/// ```
/// - Parameters:
///   - timeout: how long to wait for the object to go (default 1 second).
///   - options: limits and filters for the walk that explains a survivor.
///   - message: more context for the failure message.
///   - fileID: the caller's file ID.
///   - filePath: the caller's file path.
///   - line: the caller's line.
///   - column: the caller's column.
///   - make: builds the object (and may use it); whatever else it creates is released on return.
// Disfavoured so that an `await`ed call in async code picks the async twin.
@_disfavoredOverload
public func assertDeallocated<Object: AnyObject>(
  timeout: Duration = .seconds(1),
  options: GraphOptions = GraphOptions(),
  _ message: @autoclosure () -> String = "",
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column,
  _ make: () throws -> Object
) rethrows {
  guard let failure = try deallocationFailure(timeout: timeout, options: options, make) else { return }
  failure.record(
    at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), context: message())
}

/// The async twin of `assertDeallocated`, for objects released on other tasks, queues or run loops:
/// suspends while it waits.
/// - Parameters:
///   - timeout: how long to wait for the object to go (default 1 second).
///   - options: limits and filters for the walk that explains a survivor.
///   - message: more context for the failure message.
///   - isolation: the caller's actor, inferred.
///   - fileID: the caller's file ID.
///   - filePath: the caller's file path.
///   - line: the caller's line.
///   - column: the caller's column.
///   - make: builds the object (and may use it).
public func assertDeallocated<Object: AnyObject>(
  timeout: Duration = .seconds(1),
  options: GraphOptions = GraphOptions(),
  _ message: @autoclosure () -> String = "",
  isolation: isolated (any Actor)? = #isolation,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column,
  _ make: nonisolated(nonsending) () async throws -> Object
) async rethrows {
  let failure = try await deallocationFailure(timeout: timeout, options: options, isolation: isolation, make)
  guard let failure else { return }
  failure.record(
    at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), context: message())
}

// MARK: - Shared

/// Calls `make` in its own frame so that no strong reference outlives it, and returns a probe.
@inline(never)
private func probe<Object: AnyObject>(_ make: () throws -> Object) rethrows -> WeakProbe {
  WeakProbe(try make())
}

@inline(never)
private func probe<Object: AnyObject>(
  isolation: isolated (any Actor)?, _ make: () async throws -> Object
) async rethrows -> WeakProbe {
  WeakProbe(try await make())
}

private func deallocationFailure<Object: AnyObject>(
  timeout: Duration, options: GraphOptions, _ make: () throws -> Object
) rethrows -> LeakFailure? {
  let probe = try probe(make)
  let wait = waitForRelease([probe], timeout: timeout, options: options)
  if wait == .released { return nil }
  guard
    var failure = survivorFailure(
      probe, wait: wait, options: options, after: "the closure that made it returned")
  else { return nil }
  if isBlockingTheMainQueue, !failure.message.contains("Why: a retain cycle") {
    failure.message +=
      "\nThis check ran on the main actor (the main dispatch queue) and blocked it while it waited: a "
      + "release queued on DispatchQueue.main or on the main actor could not run until it returned. "
      + "Use `await assertDeallocated { … }`, which suspends while it waits and lets the main queue run."
  }
  return failure
}

private func deallocationFailure<Object: AnyObject>(
  timeout: Duration, options: GraphOptions, isolation: isolated (any Actor)?,
  _ make: nonisolated(nonsending) () async throws -> Object
) async rethrows -> LeakFailure? {
  let probe = try await probe(isolation: isolation, make)
  let wait = await waitForRelease([probe], timeout: timeout, options: options)
  if wait == .released { return nil }
  return survivorFailure(
    probe, wait: wait, options: options, after: "the closure that made it returned")
}
