import Dispatch
import Foundation
import NIOCore
import NIOPosix
import OpenCombine
import RetainGraph
import RetainGraphProcess
import RetainGraphTesting
import Synchronization
import Testing

@testable import RetainGraphCensus

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What the sweep's closures, tasks and queued work hold.
private final class SweepObserver: @unchecked Sendable {
  var count = 0
}

/// An OpenCombine chain whose sink holds its model unowned.
private final class SweepModel {
  let subject = PassthroughSubject<Int, Never>()
  var received: [Int] = []
  var cancellables: Set<AnyCancellable> = []

  func bind() {
    subject.map { $0 * 2 }.filter { $0 > 0 }.sink { [unowned self] in received.append($0) }
      .store(in: &cancellables)
  }
}

/// What the forked sweep sends back.
private struct SweepOutcome: Codable {
  var asked = 0
  var malformed: [String] = []
  var origins: [String: Int] = [:]
  var milliseconds = 0
}

extension CensusTests {
  /// The census sweep (issue 20.3): with Foundation timers, NotificationCenter observers, a bundle,
  /// URLSession configurations, Dispatch queues with pending work, running tasks (one with task
  /// group children, one with an `async let`), swift-nio event loops with a scheduled task and
  /// OpenCombine chains alive, `retainers(of:)` is asked about every live object the census
  /// recorded meanwhile: no crash, no hang, every report well-formed. The search runs in one
  /// forked child (a crash or a hang there fails this test, not the run), bounded by a timeout;
  /// one object of each type recorded meanwhile is asked about, every one of them.
  @Suite(.heapCensus) struct Sweep {
    /// The most types asked about.
    static let cap = 500
    static let timeout: Duration = .seconds(120)

    @Test func retainersOfEveryRecordedObject() async throws {
      let mark = HeapCensus.mark()
      // Foundation.
      let timer = Timer(timeInterval: 3_600, repeats: true) { _ in }
      RunLoop.main.add(timer, forMode: .default)
      let observer = SweepObserver()
      let token = NotificationCenter.default.addObserver(
        forName: Notification.Name("CensusSweepTests.ping"), object: nil, queue: nil
      ) { [observer] _ in observer.count += 1 }
      let bundle = Bundle.main
      let configurations = [URLSessionConfiguration.default, URLSessionConfiguration.ephemeral]
      // Dispatch: a queue with work pending behind a blocked one, and work queued for later.
      let queue = DispatchQueue(label: "census.sweep")
      let gate = DispatchSemaphore(value: 0)
      let blocking = DispatchSemaphore(value: 0)
      queue.async {
        blocking.signal()
        gate.wait()
      }
      for index in 0..<5 { queue.async { [observer] in observer.count += index } }
      let later = DispatchWorkItem { [observer] in observer.count += 1 }
      DispatchQueue.global().asyncAfter(deadline: .now() + 3_600, execute: later)
      // Running tasks: a detached poller, a task group's children, an async let. Each says when it
      // runs; the census is read once all five do.
      let (running, isRunning) = AsyncStream<Void>.makeStream()
      let stop = Atomic<Bool>(false)
      let poller = Task.detached { [observer] in
        isRunning.yield()
        while !stop.load(ordering: .relaxed) { try? await Task.sleep(for: .milliseconds(5)) }
        return observer.count
      }
      let parents = Task { [observer] in
        await withTaskGroup(of: Void.self) { group in
          for _ in 0..<3 {
            group.addTask {
              isRunning.yield()
              while !Task.isCancelled { try? await Task.sleep(for: .seconds(3_600)) }
            }
          }
          async let waiting: Void = Self.sleepAnHour(saying: isRunning)
          try? await waiting
          await group.waitForAll()
        }
        return observer.count
      }
      // swift-nio event loops, with a scheduled task pending.
      let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
      let scheduled = group.next().scheduleTask(in: .hours(1)) { [observer] in observer.count += 1 }
      // OpenCombine chains.
      let model = SweepModel()
      model.bind()
      model.subject.send(1)
      var runs = running.makeAsyncIterator()
      for _ in 0..<5 { await runs.next() }
      blocking.wait()

      // Holding every recorded object is a heap-wide retain: a parallel test's leak check waits
      // for it to end instead of taking the array's references for a holder of its survivor.
      // Every try's child once blocked in a whole-suite run: each search reads every live object,
      // and a parallel test held, on purpose, the lock of one of them (ForkedWalkTests'
      // LockedChildren, which now takes it only in its own test's walks).
      let swept: (SweepOutcome, Int, Int) = try HeapWideRetains.during {
        () throws -> (SweepOutcome, Int, Int) in
        // One object of each type recorded meanwhile: every kind of holder is asked about, and
        // each search reads every live object, so asking about thousands would take minutes.
        let recorded = HeapCensus.liveObjects(of: AnyObject.self, since: mark)
        var types: Set<ObjectIdentifier> = []
        var objects: [AnyObject] = []
        for object in recorded where objects.count < Self.cap {
          if types.insert(ObjectIdentifier(type(of: object))).inserted { objects.append(object) }
        }
        let bytes = try ForkedChild.run(timeout: Self.timeout) {
          let clock = ContinuousClock()
          let start = clock.now
          var outcome = SweepOutcome()
          for object in objects {
            let report = HeapCensus.retainers(of: object)
            outcome.asked += 1
            outcome.origins["\(report.origin)".prefix { $0 != "(" }.description, default: 0] += 1
            if let problem = Self.problem(with: report) { outcome.malformed.append(problem) }
          }
          let elapsed = clock.now - start
          outcome.milliseconds = Int(
            elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
          return Array((try? JSONEncoder().encode(outcome)) ?? Data())
        }
        return (
          try JSONDecoder().decode(SweepOutcome.self, from: Data(bytes)), objects.count, recorded.count
        )
      }
      let (outcome, picked, recorded) = swept
      print(
        "census sweep: asked about \(outcome.asked) objects, one of each of \(picked) types among \(recorded) recorded objects, in \(outcome.milliseconds) ms (forked child); origins \(outcome.origins.sorted { $0.key < $1.key })"
      )
      // Every one is asked about: a search that takes too long fails the test at its timeout.
      #expect(outcome.asked == picked)
      #expect(picked > 20)
      #expect(outcome.malformed == [])

      scheduled.cancel()
      try await group.shutdownGracefully()
      stop.store(true, ordering: .relaxed)
      _ = await poller.value
      parents.cancel()
      _ = await parents.value
      later.cancel()
      gate.signal()
      queue.sync {}
      NotificationCenter.default.removeObserver(token)
      timer.invalidate()
      withExtendedLifetime((bundle, configurations, model)) {}
    }

    /// An `async let`'s body: says it runs, then sleeps for an hour (or until cancelled).
    static func sleepAnHour(saying running: AsyncStream<Void>.Continuation) async throws {
      running.yield()
      try await Task.sleep(for: .seconds(3_600))
    }

    /// What is wrong with a report, or nil: a type and a description, no unnamed closure context,
    /// a path whose steps join up, a DOT picture, and a JSON round trip to the same report.
    static func problem(with report: RetainerReport) -> String? {
      let text = report.description
      if report.typeName.isEmpty || text.isEmpty { return "\(report.typeName): empty" }
      if text.contains("(closure context)") {
        return "\(report.typeName): an unnamed closure context\n\(text)"
      }
      for (step, next) in zip(report.path, report.path.dropFirst()) where step.target != next.holder {
        return "\(report.typeName): the path breaks between \(step.target) and \(next.holder)\n\(text)"
      }
      if !report.dot().hasPrefix("digraph") { return "\(report.typeName): no DOT picture" }
      guard let data = try? JSONEncoder().encode(report),
        let decoded = try? JSONDecoder().decode(RetainerReport.self, from: data), decoded == report
      else { return "\(report.typeName): the JSON round trip differs" }
      return nil
    }
  }
}
