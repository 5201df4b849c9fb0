package import RetainGraphProcess

/// The forked walk's side of the process machinery (``ForkedProcess``, in the target
/// RetainGraphProcess): the same call, whose failures are the public ``ForkedWalkError``.
///
/// The core, the census and the tests fork through this; only the core maps the machinery's
/// ``ForkedProcessError``, one case to the case of the same name and values.
package enum ForkedChild {
  /// What a test can observe of one child (its pid, pipe inode, try and, once reaped, its ending).
  package typealias Trace = ForkedProcess.Trace
  /// How one child of a call ended, as its parent saw it.
  package typealias Ending = ForkedProcess.Ending

  /// How many children a call makes at most.
  package static var tries: Int { ForkedProcess.tries }

  /// What a call throws when its waiting task was cancelled (the child was killed).
  package static let cancelled = ForkedWalkError(ForkedProcess.cancelled)

  /// ``ForkedProcess/run(timeout:standardError:trace:cancellation:body:)``, throwing its failure as a
  /// ``ForkedWalkError``.
  /// - Parameters:
  ///   - timeout: how long the whole call may take, every try included.
  ///   - standardError: a descriptor the child writes its standard error to; nil keeps this process's.
  ///   - trace: called in the parent once each child runs.
  ///   - cancellation: when set, the child is killed and the call throws ``cancelled``.
  ///   - body: runs in the child (one thread; see ``ForkedProcess``); its argument is the try, from 1.
  /// - Returns: the bytes `body` returned, exactly.
  /// - Throws: ``ForkedWalkError`` when every child crashed, the timeout passed, a child exited
  ///   early or sent a truncated answer, or a system call failed.
  package static func run(
    timeout: Duration,
    standardError: Int32? = nil,
    trace: ((Trace) -> Void)? = nil,
    cancellation: CancellationFlag? = nil,
    body: (_ attempt: Int) -> [UInt8]
  ) throws(ForkedWalkError) -> [UInt8] {
    _ = runtimeSetUps
    do throws(ForkedProcessError) {
      return try ForkedProcess.run(
        timeout: timeout, standardError: standardError, trace: trace, cancellation: cancellation, body: body)
    } catch {
      throw ForkedWalkError(error)
    }
  }

  /// The Swift runtime's one-time set-ups that a walk in the child reaches, done in this process
  /// before any fork, so that every child inherits them done. A `swift_once` that another thread is
  /// inside when the process forks never completes in the child: its lock is a priority-inheritance
  /// futex naming an owner the child does not have, so the child's wait does not sleep but spins on
  /// the failing futex call (running, so never replaced as stalled) until the call's timeout. Seen
  /// in the portable build: children spinning in `once_slow` under
  /// `swift_unboxFromSwiftValueWithType`, reached by the walk's first `Any` → `AnyObject` cast of a
  /// class instance (`Walker.addRoot`), forked while another test's thread made the process's
  /// first such cast. Reading this constant waits for that thread's set-up to end; the small walk
  /// reaches the other set-ups a walk makes once per process (reflection, names, closures).
  private static let runtimeSetUps: Void = {
    _ = castToAnyObject(RuntimeSetUpProbe())
    let probe = RuntimeSetUpProbe()
    probe.others = [RuntimeSetUpProbe()]
    probe.named = ["other": probe.others[0]]
    probe.action = { [probe] in _ = probe.others.count }
    _ = ObjectGraph(reflecting: probe)
    probe.action = nil
  }()

  /// The walk's cast of a root, out of the optimiser's sight (a cast it can see through would not
  /// reach the runtime).
  @inline(never) @_optimize(none)
  private static func castToAnyObject(_ value: Any) -> AnyObject { value as AnyObject }

  /// ``run(timeout:standardError:trace:cancellation:body:)`` for a body that does not need its try
  /// number.
  package static func run(
    timeout: Duration,
    standardError: Int32? = nil,
    trace: ((Trace) -> Void)? = nil,
    cancellation: CancellationFlag? = nil,
    body: () -> [UInt8]
  ) throws(ForkedWalkError) -> [UInt8] {
    try run(timeout: timeout, standardError: standardError, trace: trace, cancellation: cancellation) { _ in
      body()
    }
  }
}

extension ForkedWalkError {
  /// The process machinery's failure as the public error: each case to the case of the same name and
  /// values (the messages are worded here, in ``description``).
  package init(_ failure: ForkedProcessError) {
    switch failure {
    case .childCrashed(let signal, let tries, let progress):
      self = .childCrashed(signal: signal, tries: tries, progress: progress)
    case .timedOut(let timeout, let tries, let progress):
      self = .timedOut(after: timeout, tries: tries, progress: progress)
    case .childExited(let status): self = .childExited(status: status)
    case .malformedData(let what): self = .malformedData(what)
    case .systemCallFailed(let call, let code): self = .systemCallFailed(call, errno: code)
    }
  }
}

/// An object for ``ForkedChild``'s runtime set-ups: a walk of it reads fields, an array, a
/// dictionary, an optional, a weak reference and a closure.
private final class RuntimeSetUpProbe {
  var others: [RuntimeSetUpProbe] = []
  var named: [String: RuntimeSetUpProbe] = [:]
  weak var parent: RuntimeSetUpProbe?
  var action: (() -> Void)?
}
