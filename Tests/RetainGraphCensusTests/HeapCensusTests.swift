import Foundation
import RetainGraph
import RetainGraphCensus
import Testing

@Suite(.serialized, .heapCensus) struct HeapCensusTests {
  @Test func isRunningUnderTheTrait() {
    #expect(HeapCensus.isAvailable)
    #expect(HeapCensus.isRunning)
  }

  @Test func countsLiveInstancesAndForgetsDeadOnes() {
    let mark = HeapCensus.mark()
    var widgets = (0..<7).map { _ in CensusWidget() }
    #expect(HeapCensus.liveCount(of: CensusWidget.self, since: mark) == 7)
    weak let probe = widgets[0]
    widgets.removeFirst(3)
    #expect(probe == nil)
    #expect(HeapCensus.liveCount(of: CensusWidget.self, since: mark) == 4)
    do {
      let live = HeapCensus.liveObjects(of: CensusWidget.self, since: mark)
      #expect(live.count == 4)
      #expect(Set(live.map(ObjectIdentifier.init)) == Set(widgets.map(ObjectIdentifier.init)))
    }
    widgets.removeAll()
    #expect(HeapCensus.liveCount(of: CensusWidget.self, since: mark) == 0)
  }

  @Test func countsByType() {
    let mark = HeapCensus.mark()
    let widgets = (0..<3).map { _ in CensusWidget() }
    let counts = HeapCensus.liveCounts(since: mark)
    let widgetCount = counts.first { $0.typeName.hasSuffix(".CensusWidget") }
    #expect(widgetCount?.count == 3)
    withExtendedLifetime(widgets) {}
  }
}

@Suite(.serialized, .heapCensus) struct RetainerTests {
  @Test func singletonSurvivorIsNamedByItsGlobal() throws {
    CensusImageCache.shared.store(CensusImage(name: "kept"))
    defer { CensusImageCache.shared.removeAll() }
    weak let image = CensusImageCache.shared.images.last
    let report = HeapCensus.retainers(of: try #require(image))
    print(report)
    print(report.dot())
    #expect(report.holderPath == "CensusImageCache.shared.images[0]")
  }

  @Test func globalVariableHolderIsNamed() {
    censusRegistry.presenters.append(CensusPresenter())
    defer { censusRegistry.presenters.removeAll() }
    let report = HeapCensus.retainers(of: censusRegistry.presenters[0])
    print(report)
    #expect(report.holderPath == "censusRegistry.presenters[0]")
  }

  @Test func observerHeldByNotificationCenter() {
    let observer = CensusObserver()
    observer.observe()
    defer { observer.token.map(NotificationCenter.default.removeObserver) }
    let report = HeapCensus.retainers(of: observer)
    print(report)
  }

  @Test func unseenHolder() {
    let hidden = Unmanaged.passRetained(CensusHidden())
    defer { hidden.release() }
    let report = HeapCensus.retainers(of: hidden.takeUnretainedValue().child)
    print(report)
  }
}
