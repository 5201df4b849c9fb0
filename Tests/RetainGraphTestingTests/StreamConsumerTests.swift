import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Samples
import Testing

/// Shared library storage is not the user's leak: an `AsyncStream`'s storage, which the producer
/// (a room outside the graph) still holds, outlives a correct consumer without failing it.
@Suite("Shared library storage")
struct StreamConsumerTests {
  /// The fixed consumer: `[weak self]`, its task cancelled in `deinit`. It goes (the weak probe
  /// says so), the stream's storage stays with the room, and `assertNoLeaks` passes.
  @Test func aCorrectStreamConsumerPasses() async throws {
    let room = ChatRoom()
    weak var consumer: StreamConsumer?
    await assertNoLeaks {
      let made = StreamConsumer(stream: room.stream)
      consumer = made
      return made
    }
    #expect(consumer == nil)
    #expect(await checkNoLeaks { StreamConsumer(stream: room.stream) } == nil)
    // The storage did survive: taken as the user's own objects, it is what failed.
    let own = try #require(
      await checkNoLeaks(options: GraphOptions(libraryModules: [])) { StreamConsumer(stream: room.stream) }
    ).description
    assertGolden(own, named: "stream-storage-as-your-own")
    // Named as ignored types, the same storage is left out of the walk.
    let ignored = GraphOptions(
      ignoredTypeNames: ["AsyncStream<*>._Storage", "AsyncStream<*>._Context"], libraryModules: [])
    #expect(await checkNoLeaks(options: ignored) { StreamConsumer(stream: room.stream) } == nil)
    room.continuation.finish()
  }

  /// The leaky twin (a strong `self` in the task) still fails, naming the consumer.
  @Test func theLeakyTwinFails() async throws {
    let room = ChatRoom()
    weak var consumer: LeakyStreamConsumer?
    let text = try #require(
      await checkNoLeaks(timeout: .milliseconds(200)) {
        let made = LeakyStreamConsumer(stream: room.stream)
        consumer = made
        return made
      }
    ).description
    assertGolden(text, named: "leaky-stream-consumer")
    #expect(consumer != nil)
    consumer?.task?.cancel()
    room.continuation.finish()
  }

  /// A library object shared with a holder outside the graph that keeps an object of yours alive
  /// is a leak: here `Samples` stands for the library, its `Service` held by a hub outside the
  /// graph, its completion capturing the client's listener.
  @Test func aLibraryObjectKeepingYoursAliveFails() throws {
    let hub = ServiceHub()
    weak var listener: Listener?
    let options = GraphOptions(libraryModules: GraphOptions.defaultLibraryModules.union(["Samples"]))
    let text = try #require(
      checkNoLeaks(timeout: .milliseconds(200), options: options) {
        let client = ServiceClientOfHub(hub: hub)
        listener = client.listener
        return client
      }
    ).description
    assertGolden(text, named: "library-keeps-yours")
    #expect(listener != nil)
    hub.service.completion = nil
    #expect(listener == nil)
  }
}

final class ChatMessage: Sendable {
  let text: String
  init(text: String) { self.text = text }
}

/// The producer: it keeps the stream's continuation, outside any consumer's graph.
final class ChatRoom: Sendable {
  let stream: AsyncStream<ChatMessage>
  let continuation: AsyncStream<ChatMessage>.Continuation
  init() { (stream, continuation) = AsyncStream.makeStream() }
}

final class StreamConsumer: @unchecked Sendable {
  var task: Task<Void, Never>?
  var received = 0
  init(stream: AsyncStream<ChatMessage>) {
    task = Task { [weak self] in
      for await message in stream { self?.deliver(message) }
    }
  }
  func deliver(_ message: ChatMessage) { received += 1 }
  deinit { task?.cancel() }
}

final class LeakyStreamConsumer: @unchecked Sendable {
  var task: Task<Void, Never>?
  var received = 0
  init(stream: AsyncStream<ChatMessage>) {
    task = Task {
      for await message in stream { self.deliver(message) }
    }
  }
  func deliver(_ message: ChatMessage) { received += 1 }
  deinit { task?.cancel() }
}

/// Holds a library's service outside the graph of its clients.
final class ServiceHub {
  let service = Service()
}

final class Listener {
  var calls = 0
}

final class ServiceClientOfHub {
  let service: Service
  let listener = Listener()
  init(hub: ServiceHub) {
    service = hub.service
    service.completion = { [listener] _ in listener.calls += 1 }
  }
}
