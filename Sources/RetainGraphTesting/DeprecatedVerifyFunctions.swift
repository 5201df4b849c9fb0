public import RetainGraph

// The `verify…` functions returned the failure text; their `check…` twins return the failure as a
// value (``LeakCheckFailure``), whose `description` is the same text. These forward to them.

/// The failure text of ``checkNoCycles(_:options:filePath:)``, reading no known-cycles file but
/// ``GraphOptions/knownCyclesFile``.
/// - Parameters:
///   - root: the object or value to check.
///   - options: limits and filters.
/// - Returns: the failure text, or nil.
@available(*, deprecated, renamed: "checkNoCycles(_:options:)", message: "returns a LeakCheckFailure")
public func verifyNoCycles(_ root: Any, options: GraphOptions = GraphOptions()) -> String? {
  checkNoCycles(root, options: options, knownFile: options.knownCyclesFile)?.description
}

/// The failure text of ``checkDeallocated(timeout:options:_:)-(_,_,()->Object)``.
/// - Parameters:
///   - timeout: how long to wait for the object to go.
///   - options: limits and filters for the walk that explains a survivor.
///   - make: builds the object.
/// - Returns: the failure text, or nil.
@_disfavoredOverload
@available(
  *, deprecated, renamed: "checkDeallocated(timeout:options:_:)", message: "returns a LeakCheckFailure"
)
public func verifyDeallocated<Object: AnyObject>(
  timeout: Duration = .seconds(1),
  options: GraphOptions = GraphOptions(),
  _ make: () throws -> Object
) rethrows -> String? {
  try checkDeallocated(timeout: timeout, options: options, make)?.description
}

/// The failure text of the async ``checkDeallocated(timeout:options:isolation:_:)``.
/// - Parameters:
///   - timeout: how long to wait for the object to go.
///   - options: limits and filters for the walk that explains a survivor.
///   - isolation: the caller's actor, inferred.
///   - make: builds the object.
/// - Returns: the failure text, or nil.
@available(
  *, deprecated, renamed: "checkDeallocated(timeout:options:isolation:_:)",
  message: "returns a LeakCheckFailure"
)
public func verifyDeallocated<Object: AnyObject>(
  timeout: Duration = .seconds(1),
  options: GraphOptions = GraphOptions(),
  isolation: isolated (any Actor)? = #isolation,
  _ make: nonisolated(nonsending) () async throws -> Object
) async rethrows -> String? {
  try await checkDeallocated(timeout: timeout, options: options, isolation: isolation, make)?.description
}

/// The failure text of ``checkNoLeaks(timeout:options:_:)-(_,_,()->Root)``.
/// - Parameters:
///   - timeout: how long to wait for the objects to go.
///   - options: limits and filters for the walk.
///   - make: builds the module and returns its root.
/// - Returns: the failure text, or nil.
@_disfavoredOverload
@available(*, deprecated, renamed: "checkNoLeaks(timeout:options:_:)", message: "returns a LeakCheckFailure")
public func verifyNoLeaks<Root>(
  timeout: Duration = .seconds(1),
  options: GraphOptions = GraphOptions(),
  _ make: () throws -> Root
) rethrows -> String? {
  try checkNoLeaks(timeout: timeout, options: options, make)?.description
}

/// The failure text of the async ``checkNoLeaks(timeout:options:isolation:_:)``.
/// - Parameters:
///   - timeout: how long to wait for the objects to go.
///   - options: limits and filters for the walk.
///   - isolation: the caller's actor, inferred.
///   - make: builds the module and returns its root.
/// - Returns: the failure text, or nil.
@available(
  *, deprecated, renamed: "checkNoLeaks(timeout:options:isolation:_:)", message: "returns a LeakCheckFailure"
)
public func verifyNoLeaks<Root>(
  timeout: Duration = .seconds(1),
  options: GraphOptions = GraphOptions(),
  isolation: isolated (any Actor)? = #isolation,
  _ make: nonisolated(nonsending) () async throws -> Root
) async rethrows -> String? {
  try await checkNoLeaks(timeout: timeout, options: options, isolation: isolation, make)?.description
}

/// The failure text of ``checkNoGrowth(iterations:of:allowing:options:_:)-(_,_,_,_,(Root)->Void)``.
/// - Parameters:
///   - iterations: how many times to run the scenario.
///   - root: what the scenario runs on, and where the walk starts.
///   - allowances: types or holders' properties that may keep a number of survivors.
///   - options: limits and filters for the walks.
///   - scenario: one run of the scenario.
/// - Returns: the failure text, or nil.
@_disfavoredOverload
@available(
  *, deprecated, renamed: "checkNoGrowth(iterations:of:allowing:options:_:)",
  message: "returns a LeakCheckFailure"
)
public func verifyNoGrowth<Root>(
  iterations: Int = 5,
  of root: Root,
  allowing allowances: [GrowthAllowance] = [],
  options: GraphOptions = GraphOptions(),
  _ scenario: (Root) throws -> Void
) rethrows -> String? {
  try checkNoGrowth(iterations: iterations, of: root, allowing: allowances, options: options, scenario)?
    .description
}

/// The failure text of the async ``checkNoGrowth(iterations:of:allowing:options:isolation:_:)``.
/// - Parameters:
///   - iterations: how many times to run the scenario.
///   - root: what the scenario runs on, and where the walk starts.
///   - allowances: types or holders' properties that may keep a number of survivors.
///   - options: limits and filters for the walks.
///   - isolation: the caller's actor, inferred.
///   - scenario: one run of the scenario.
/// - Returns: the failure text, or nil.
@available(
  *, deprecated, renamed: "checkNoGrowth(iterations:of:allowing:options:isolation:_:)",
  message: "returns a LeakCheckFailure"
)
public func verifyNoGrowth<Root>(
  iterations: Int = 5,
  of root: Root,
  allowing allowances: [GrowthAllowance] = [],
  options: GraphOptions = GraphOptions(),
  isolation: isolated (any Actor)? = #isolation,
  _ scenario: nonisolated(nonsending) (Root) async throws -> Void
) async rethrows -> String? {
  try await checkNoGrowth(
    iterations: iterations, of: root, allowing: allowances, options: options, isolation: isolation, scenario)?
    .description
}

/// The failure text of ``checkInstances(of:atMost:in:options:)``.
/// - Parameters:
///   - type: the type to count.
///   - limit: how many instances are allowed.
///   - root: where the walk starts.
///   - options: limits and filters for the walk.
/// - Returns: the failure text, or nil.
@available(
  *, deprecated, renamed: "checkInstances(of:atMost:in:options:)", message: "returns a LeakCheckFailure"
)
public func verifyInstances<T>(
  of type: T.Type, atMost limit: Int, in root: Any, options: GraphOptions = GraphOptions()
) -> String? {
  checkInstances(of: type, atMost: limit, in: root, options: options)?.description
}

/// The failure text of the rootless ``checkNoGrowth(iterations:allowing:_:)``.
/// - Parameters:
///   - iterations: how many times to run the scenario.
///   - allowances: types that may keep a number of survivors.
///   - scenario: one run of the scenario.
/// - Returns: the failure text, or nil.
@_disfavoredOverload
@available(
  *, deprecated, renamed: "checkNoGrowth(iterations:allowing:_:)", message: "returns a LeakCheckFailure"
)
public func verifyNoGrowth(
  iterations: Int = 5,
  allowing allowances: [GrowthAllowance] = [],
  _ scenario: () throws -> Void
) rethrows -> String? {
  try checkNoGrowth(iterations: iterations, allowing: allowances, scenario)?.description
}

/// The failure text of the rootless async ``checkNoGrowth(iterations:allowing:isolation:_:)``.
/// - Parameters:
///   - iterations: how many times to run the scenario.
///   - allowances: types that may keep a number of survivors.
///   - isolation: the caller's actor, inferred.
///   - scenario: one run of the scenario.
/// - Returns: the failure text, or nil.
@available(
  *, deprecated, renamed: "checkNoGrowth(iterations:allowing:isolation:_:)",
  message: "returns a LeakCheckFailure"
)
public func verifyNoGrowth(
  iterations: Int = 5,
  allowing allowances: [GrowthAllowance] = [],
  isolation: isolated (any Actor)? = #isolation,
  _ scenario: nonisolated(nonsending) () async throws -> Void
) async rethrows -> String? {
  try await checkNoGrowth(iterations: iterations, allowing: allowances, isolation: isolation, scenario)?
    .description
}

/// The failure text of the process-wide ``checkInstances(of:atMost:)``.
/// - Parameters:
///   - type: the type to count.
///   - limit: how many instances are allowed.
/// - Returns: the failure text, or nil.
@available(*, deprecated, renamed: "checkInstances(of:atMost:)", message: "returns a LeakCheckFailure")
public func verifyInstances<T>(of type: T.Type, atMost limit: Int) -> String? {
  checkInstances(of: type, atMost: limit)?.description
}
