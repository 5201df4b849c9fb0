import Foundation
import RetainGraph
import RetainGraphRendering
import Testing

/// The width and height a PNG's header gives (the IHDR chunk right after the signature).
func pngSize(_ png: Data) -> (width: Int, height: Int)? {
  let bytes = [UInt8](png.prefix(24))
  guard bytes.count == 24, bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
    bytes[12..<16] == [0x49, 0x48, 0x44, 0x52]
  else { return nil }
  func number(at offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
  return (number(at: 16), number(at: 20))
}

@Suite struct AppGraphRenderingTests {
  @Test func aFortyNodeAppGraphRendersAtMost2000PixelsWide() throws {
    let app = makeAppGraph()
    let graph = ObjectGraph(reflecting: app)
    #expect((35...50).contains(graph.nodes.count), "\(graph.nodes.count) nodes")
    let dot = graph.dot()
    // Broad rather than deep: left to right is the narrower picture here (top to bottom was 6,343 px).
    #expect(dot.contains("rankdir=LR"))
    // The closure's name as the fix lines write it, wrapped and cut to three lines.
    #expect(dot.contains("label=\"closure #1 in\\nFeatureCoordinator.\\nstartFeatureFlow…\""))
    #expect(
      dot.contains("tooltip=\"closure #1 in RetainGraphRenderingTests.FeatureCoordinator.startFeatureFlow("))
    let png = try graph.render(.png)
    let size = try #require(pngSize(png))
    #expect(size.width <= 2_000, "\(size.width) × \(size.height) px")
    for child in app.childCoordinators { child.onFeatureFlowDidFinishWithResult = nil }
    app.dependencies.network.pendingRequests = [:]
  }
}
