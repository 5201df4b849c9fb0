public import RetainGraph

/// Builds a module with `make`, walks the whole graph from its root, takes a weak reference to every
/// object in it, releases the root, and returns what survived and why.
///
/// Every object reachable from the root is checked, not only the ones a test names: a view,
/// presenter and interactor need no extra API to be exposed. Each survivor is listed with the retain
/// cycle that keeps it; survivors that no cycle explains are listed separately as retained from
/// outside the graph (a global, a singleton, a cache, a task, or a variable of the test).
/// - Parameters:
///   - timeout: how long to wait for the objects to go (default 1 second; returns as soon as they are).
///   - options: limits and filters for the walk (e.g. `ignoredTypes` for shared services).
///   - make: builds the module and returns its root. Keep no other reference to it.
/// - Returns: the failure text, or nil when every object was deallocated.
// Disfavoured so that an `await`ed call in async code picks the async twin.
@_disfavoredOverload
public func verifyNoLeaks<Root>(
  timeout: Duration = .seconds(1),
  options: GraphOptions = GraphOptions(),
  _ make: () throws -> Root
) rethrows -> String? {
  try noLeaksFailure(timeout: timeout, options: options, make)?.fullText
}

/// The async twin of ``verifyNoLeaks(timeout:options:_:)-(_,_,()->Root)``, for modules built or
/// released on other tasks, queues or run loops: suspends while it waits.
/// - Parameters:
///   - timeout: how long to wait for the objects to go (default 1 second; returns as soon as they are).
///   - options: limits and filters for the walk.
///   - isolation: the caller's actor, inferred.
///   - make: builds the module and returns its root. Keep no other reference to it.
/// - Returns: the failure text, or nil when every object was deallocated.
public func verifyNoLeaks<Root>(
  timeout: Duration = .seconds(1),
  options: GraphOptions = GraphOptions(),
  isolation: isolated (any Actor)? = #isolation,
  _ make: nonisolated(nonsending) () async throws -> Root
) async rethrows -> String? {
  try await noLeaksFailure(timeout: timeout, options: options, isolation: isolation, make)?.fullText
}

/// Fails the current test (XCTest or Swift Testing) at the caller's line when any object reachable
/// from the root that `make` returns is still alive after the root is released.
///
/// ```swift
/// assertNoLeaks { ProfileModule.make(user: .preview) }
/// ```
/// The failure lists each survivor with the retain cycle that keeps it (the path from the root, the
/// loop, the reference to make weak) and, separately, the survivors retained from outside the graph.
/// - Parameters:
///   - timeout: how long to wait for the objects to go (default 1 second; returns as soon as they are).
///   - options: limits and filters for the walk (e.g. `ignoredTypes` for shared services).
///   - message: more context for the failure message.
///   - fileID: the caller's file ID.
///   - filePath: the caller's file path.
///   - line: the caller's line.
///   - column: the caller's column.
///   - make: builds the module and returns its root. Keep no other reference to it.
// Disfavoured so that an `await`ed call in async code picks the async twin.
@_disfavoredOverload
public func assertNoLeaks<Root>(
  timeout: Duration = .seconds(1),
  options: GraphOptions = GraphOptions(),
  _ message: @autoclosure () -> String = "",
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column,
  _ make: () throws -> Root
) rethrows {
  guard let failure = try noLeaksFailure(timeout: timeout, options: options, make) else { return }
  failure.record(
    at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), context: message())
}

/// The async twin of `assertNoLeaks`, for modules built or released on other tasks, queues or run
/// loops: suspends while it waits, so it holds no thread of the cooperative pool.
/// - Parameters:
///   - timeout: how long to wait for the objects to go (default 1 second; returns as soon as they are).
///   - options: limits and filters for the walk.
///   - message: more context for the failure message.
///   - isolation: the caller's actor, inferred.
///   - fileID: the caller's file ID.
///   - filePath: the caller's file path.
///   - line: the caller's line.
///   - column: the caller's column.
///   - make: builds the module and returns its root. Keep no other reference to it.
public func assertNoLeaks<Root>(
  timeout: Duration = .seconds(1),
  options: GraphOptions = GraphOptions(),
  _ message: @autoclosure () -> String = "",
  isolation: isolated (any Actor)? = #isolation,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column,
  _ make: nonisolated(nonsending) () async throws -> Root
) async rethrows {
  let failure = try await noLeaksFailure(timeout: timeout, options: options, isolation: isolation, make)
  guard let failure else { return }
  failure.record(
    at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), context: message())
}

// MARK: - Shared

private func noLeaksFailure<Root>(
  timeout: Duration, options: GraphOptions, _ make: () throws -> Root
) rethrows -> LeakFailure? {
  let probed = try probeGraph(make, options: options)
  let wait = waitForRelease(probed.probes.map(\.probe), timeout: timeout, options: options)
  return survivorsFailure(probed, wait: wait)
}

private func noLeaksFailure<Root>(
  timeout: Duration, options: GraphOptions, isolation: isolated (any Actor)?,
  _ make: nonisolated(nonsending) () async throws -> Root
) async rethrows -> LeakFailure? {
  let probed = try await probeGraph(isolation: isolation, make, options: options)
  let wait = await waitForRelease(probed.probes.map(\.probe), timeout: timeout, options: options)
  return survivorsFailure(probed, wait: wait)
}

private func survivorsFailure(_ probed: ProbedGraph, wait: ReleaseWait) -> LeakFailure? {
  if wait == .released { return nil }
  let survivors = probed.survivors.map(\.id)
  guard !survivors.isEmpty else { return nil }
  let rootName = probed.graph.nodes[probed.graph.root].shortTypeName
  return LeakFailure(
    message: SurvivorReport(graph: probed.graph, survivors: survivors, holders: probed.censusHolders).text(
      headline: "\(Explanation.count(survivors.count, "object")) reachable from \(rootName) "
        + "\(wait.stillAlive(survivors.count == 1 ? "is" : "are", after: "\(rootName) was released")):"),
    graphs: [("retain-graph-\(rootName)", probed.graph)])
}
