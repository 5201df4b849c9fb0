import Foundation
import RetainGraph

// For each shape and size: objects per second for RetainGraph (walk + cycles), the naive Mirror walk
// and the typed traversal, measured in the same run; and RetainGraph's peak memory beyond the objects.

func seconds(_ body: () -> Void) -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// Resets the peak resident set size, so that VmHWM measures what happens next (Linux).
func resetPeakMemory() {
  try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

/// (current, peak) resident set size in bytes, from /proc/self/status.
func residentMemory() -> (current: Int, peak: Int) {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
  func field(_ name: String) -> Int {
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return 0 }
    return (Int(line.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "0") ?? 0) * 1024
  }
  return (field("VmRSS:"), field("VmHWM:"))
}

func rate(_ count: Int, _ time: Double) -> String {
  let perSecond = Double(count) / time
  return perSecond >= 1e6
    ? String(format: "%.2fM/s", perSecond / 1e6) : String(format: "%.0fk/s", perSecond / 1e3)
}

let arguments = CommandLine.arguments.dropFirst()
let sizes = arguments.isEmpty ? [10_000, 100_000, 1_000_000] : arguments.compactMap { Int($0) }
let mirrorLimit = 100_000  // the naive walk is too slow beyond this; its rate is measured up to here

print("shape   objects     RetainGraph   naive Mirror  typed         RG/Mirror  typed/RG  peak bytes/object")
for shape in Shape.allCases {
  for size in sizes {
    let (root, all) = shape.build(count: size)
    var graph: ObjectGraph?
    var cycleCount = 0
    // Warm the type plan cache once (a real test suite reuses it too).
    _ = ObjectGraph(reflecting: shape.build(count: 10).root)
    let before = residentMemory().current
    resetPeakMemory()
    let rgTime = seconds {
      let built = ObjectGraph(reflecting: root, options: GraphOptions(maxNodes: 10_000_000))
      cycleCount = built.cycles.count
      graph = built
    }
    let peak = residentMemory().peak
    let nodes = graph?.nodeCount ?? 0
    graph = nil
    var typedCount = 0
    let typedTime = seconds { typedCount = typedTraversal(root) }
    let mirrorText: String
    var ratio = "-"
    if size <= mirrorLimit {
      var mirrorCount = 0
      let mirrorTime = seconds { mirrorCount = naiveMirrorWalk(root) }
      mirrorText = rate(mirrorCount, mirrorTime)
      ratio = String(format: "%.0fx", (Double(nodes) / rgTime) / (Double(mirrorCount) / mirrorTime))
    } else {
      mirrorText = "(skipped)"
    }
    precondition(nodes == size && typedCount == size, "walk found \(nodes) of \(size) objects")
    let bytesPerObject = Double(max(0, peak - before)) / Double(size)
    print(
      shape.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
        + String(size).padding(toLength: 12, withPad: " ", startingAt: 0)
        + rate(nodes, rgTime).padding(toLength: 14, withPad: " ", startingAt: 0)
        + mirrorText.padding(toLength: 14, withPad: " ", startingAt: 0)
        + rate(typedCount, typedTime).padding(toLength: 14, withPad: " ", startingAt: 0)
        + ratio.padding(toLength: 11, withPad: " ", startingAt: 0)
        + String(format: "%.1fx", (Double(typedCount) / typedTime) / (Double(nodes) / rgTime))
        .padding(toLength: 10, withPad: " ", startingAt: 0)
        + String(format: "%.0f", bytesPerObject) + "  (cycles: \(cycleCount))")
    BenchNode.dismantle(all)
    _ = root
  }
}
