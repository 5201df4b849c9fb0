import Dispatch
import Foundation
import FoundationNetworking
import NIOCore
import NIOPosix
import OpenCombine
import RetainGraph
import RetainGraphCensus
import Synchronization
import Testing

/// What a sweep keeps alive while it asks the census about every object.
private final class SweepObserver: @unchecked Sendable {
  var count = 0
}

private final class SweepModel {
  let subject = PassthroughSubject<Int, Never>()
  var received: [Int] = []
  var cancellables: Set<AnyCancellable> = []

  func bind() {
    subject.map { $0 * 2 }.filter { $0 > 0 }.sink { [unowned self] in received.append($0) }.store(
      in: &cancellables)
  }
}

extension CensusTests {
  /// The census sweep (issue 20.3): with Foundation timers, NotificationCenter observers, a bundle,
  /// URLSession configurations, Dispatch queues with pending work, running tasks, swift-nio event
  /// loops and OpenCombine chains alive, `retainers(of:)` is asked about every live object the
  /// census recorded meanwhile: no crash, no hang, every report well-formed.
  @Suite(.heapCensus) struct Sweep {
    @Test func retainersOfEveryRecordedObject() async throws {
      let mark = HeapCensus.mark()
      let clock = ContinuousClock()
      // Foundation.
      let timer = Timer(timeInterval: 3_600, repeats: true) { _ in }
      RunLoop.main.add(timer, forMode: .default)
      let observer = SweepObserver()
      let token = NotificationCenter.default.addObserver(
        forName: Notification.Name("CensusSweepTests.ping"), object: nil, queue: nil
      ) { [observer] _ in observer.count += 1 }
      let bundle = Bundle.main
      let configurations = [URLSessionConfiguration.default, URLSessionConfiguration.ephemeral]
      // Dispatch: a queue with work pending behind a blocked one.
      let queue = DispatchQueue(label: "census.sweep")
      let gate = DispatchSemaphore(value: 0)
      queue.async { gate.wait() }
      for index in 0..<5 { queue.async { [observer] in observer.count += index } }
      // A running task.
      let stop = Atomic<Bool>(false)
      let task = Task.detached { [observer] in
        while !stop.load(ordering: .relaxed) { try? await Task.sleep(for: .milliseconds(5)) }
        return observer.count
      }
      // swift-nio event loops, with a scheduled task pending.
      let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
      let scheduled = group.next().scheduleTask(in: .hours(1)) { [observer] in observer.count += 1 }
      // OpenCombine chains.
      let model = SweepModel()
      model.bind()
      model.subject.send(1)

      let objects = HeapCensus.liveObjects(of: AnyObject.self, since: mark)
      let start = clock.now
      var malformed: [String] = []
      for object in objects {
        let report = HeapCensus.retainers(of: object)
        let text = report.description
        if text.isEmpty || report.typeName.isEmpty || text.contains("0x") {
          malformed.append(report.typeName)
        }
      }
      let elapsed = clock.now - start
      print("census sweep: \(objects.count) objects asked about in \(elapsed)")
      #expect(objects.count > 50)
      #expect(malformed.isEmpty)

      scheduled.cancel()
      try await group.shutdownGracefully()
      stop.store(true, ordering: .relaxed)
      _ = await task.value
      gate.signal()
      queue.sync {}
      NotificationCenter.default.removeObserver(token)
      timer.invalidate()
      withExtendedLifetime((bundle, configurations, model)) {}
    }
  }
}
