public import RetainGraph

/// Builds a module with `make`, walks the whole graph from its root, takes a weak reference to every
/// object in it, releases the root, and returns what survived and why.
///
/// Every object reachable from the root is checked, not only the ones a test names: a view,
/// presenter and interactor need no extra API to be exposed. Each survivor is listed with the retain
/// cycle that keeps it; survivors that no cycle explains are listed separately as retained from
/// outside the graph (a global, a singleton, a cache, a task, or a variable of the test), survivors
/// of one type as one line with a count.
///
/// A library's object (see `GraphOptions.libraryModules`) that survives only because a holder
/// outside the graph shares it (an `AsyncStream`'s storage, held by the producer's continuation) is
/// not a leak: it is listed as shared when something else fails, and passes otherwise, unless a
/// retain cycle keeps it or it keeps a surviving object of yours alive. A walk cut by a limit fails
/// as incomplete even when everything probed went: what lay past the cut was never probed.
/// - Parameters:
///   - timeout: how long to wait for the objects to go (default 1 second; returns as soon as they are).
///   - options: limits and filters for the walk (e.g. `ignoredTypes` for shared services).
///   - make: builds the module and returns its root. Keep no other reference to it.
/// - Returns: the failure (its `description` is the text the `assert…` twin reports), or nil when every object was deallocated.
// Disfavoured so that an `await`ed call in async code picks the async twin.
@_disfavoredOverload
public func checkNoLeaks<Root>(
  timeout: Duration = .seconds(1),
  options: GraphOptions = GraphOptions(),
  _ make: () throws -> Root
) rethrows -> LeakCheckFailure? {
  try noLeaksFailure(timeout: timeout, options: options, make).map(LeakCheckFailure.init)
}

/// The async twin of ``checkNoLeaks(timeout:options:_:)-(_,_,()->Root)``, for modules built or
/// released on other tasks, queues or run loops: suspends while it waits.
/// - Parameters:
///   - timeout: how long to wait for the objects to go (default 1 second; returns as soon as they are).
///   - options: limits and filters for the walk.
///   - isolation: the caller's actor, inferred.
///   - make: builds the module and returns its root. Keep no other reference to it.
/// - Returns: the failure (its `description` is the text the `assert…` twin reports), or nil when every object was deallocated.
public func checkNoLeaks<Root>(
  timeout: Duration = .seconds(1),
  options: GraphOptions = GraphOptions(),
  isolation: isolated (any Actor)? = #isolation,
  _ make: nonisolated(nonsending) () async throws -> Root
) async rethrows -> LeakCheckFailure? {
  try await noLeaksFailure(timeout: timeout, options: options, isolation: isolation, make).map(
    LeakCheckFailure.init)
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
  let wait = waitForRelease(probed.awaitedProbes, timeout: timeout, options: options)
  return survivorsFailure(probed, wait: wait)
}

private func noLeaksFailure<Root>(
  timeout: Duration, options: GraphOptions, isolation: isolated (any Actor)?,
  _ make: nonisolated(nonsending) () async throws -> Root
) async rethrows -> LeakFailure? {
  let probed = try await probeGraph(isolation: isolation, make, options: options)
  let wait = await waitForRelease(probed.awaitedProbes, timeout: timeout, options: options)
  return survivorsFailure(probed, wait: wait)
}

/// The failure for what survived its root: objects of yours, and library objects that a cycle keeps
/// or that keep an object of yours alive (a library's object that survives only because a holder
/// outside the graph shares it, such as an `AsyncStream`'s storage held by its producer, is shared,
/// not leaked). A walk a limit cut fails as incomplete even when nothing survived: what lay past
/// the cut was never probed.
private func survivorsFailure(_ probed: ProbedGraph, wait: ReleaseWait) -> LeakFailure? {
  let graph = probed.graph
  let rootName = graph.nodes[graph.root].shortTypeName
  let alive = wait == .released ? [] : probed.survivors.map(\.id)
  let report = SurvivorReport(graph: graph, survivors: alive, holders: probed.censusHolders)
  let (leaked, shared) = report.leakedAndShared()
  let graphs = [("retain-graph-\(rootName)", graph)]
  guard !leaked.isEmpty else {
    guard graph.isTruncated, let incomplete = graph.incompleteness(graph.notes(about: []), mayMiss: "a leak")
    else { return nil }
    return LeakFailure(
      message: (incomplete.lines + [
        incomplete.howToSee, "", "In what it saw: every object probed was released",
      ])
      .joined(separator: "\n"),
      graphs: graphs)
  }
  var finished = report
  finished.survivors = leaked
  finished.shared = shared
  return LeakFailure(
    message: finished.text(
      headline: "\(Explanation.count(leaked.count, "object")) reachable from \(rootName) "
        + "\(wait.stillAlive(leaked.count == 1 ? "is" : "are", after: "\(rootName) was released")):"),
    graphs: graphs)
}
