package import RetainGraph
internal import RetainGraphProcess

extension HeapCensus {
  /// The `async` form of ``retainers(of:)``: the search runs on a thread of its own while the
  /// calling task suspends, so that an async test or a request handler does not hold one of the
  /// cooperative pool's threads for the whole search (other tasks keep running meanwhile).
  ///
  /// ```swift
  /// let report = await HeapCensus.searchRetainers(of: image)
  /// ```
  /// The in-process search cannot be stopped halfway: when the calling task is cancelled, it still
  /// runs to its end and its report is returned.
  /// - Parameter object: the object to explain.
  /// - Returns: the report, as ``retainers(of:)`` makes it.
  nonisolated(nonsending) public static func searchRetainers(of object: AnyObject) async -> RetainerReport {
    let box = OffPoolBox(object)
    return await OffPool.run { _ in retainers(of: box.value) }
  }

  /// The `async` form of ``retainers(isolating:timeout:)``: the search runs in a forked child while
  /// the calling task suspends (a thread of its own waits for the child, off the cooperative pool).
  /// Cancelling the calling task kills the child.
  ///
  /// ```swift
  /// let report = try await HeapCensus.searchRetainers(isolating: image, timeout: .seconds(30))
  /// ```
  /// - Parameters:
  ///   - object: an object allocated while the census ran.
  ///   - timeout: how long the child may take.
  /// - Returns: the report.
  /// - Throws: `CancellationError` when the calling task was cancelled (the child is killed);
  ///   `ForkedWalkError` when the child crashed, timed out or sent something unreadable.
  nonisolated(nonsending) public static func searchRetainers(
    isolating object: AnyObject, timeout: Duration = .seconds(30)
  ) async throws -> RetainerReport {
    try await searchRetainers(isolating: object, timeout: timeout, childFault: nil)
  }

  /// ``searchRetainers(isolating:timeout:)`` with a test hook (a fault the child runs).
  nonisolated(nonsending) package static func searchRetainers(
    isolating object: AnyObject, timeout: Duration, childFault: ObjectGraph.ForkedChildFault?
  ) async throws -> RetainerReport {
    let box = OffPoolBox(object)
    let (result, cancelled) = await OffPool.run { cancellation in
      let result = Result { () throws(ForkedWalkError) -> RetainerReport in
        try retainers(
          isolating: box.value, timeout: timeout, childFault: childFault, cancellation: cancellation)
      }
      return (result, cancellation.isSet)
    }
    if cancelled { throw CancellationError() }
    return try result.get()
  }
}
