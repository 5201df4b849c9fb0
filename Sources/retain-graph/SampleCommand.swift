import ArgumentParser
import RetainGraph
import Samples

struct SampleCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sample",
    abstract: "Build a sample scenario and print its leak trace.",
    discussion: "Example:\n  retain-graph sample viper-module"
  )

  @Argument(help: "The sample's name (see `retain-graph samples`).")
  var name: String

  func run() throws {
    guard let sample = Sample.named(name) else {
      let names = Sample.all.map { "  \($0.name)" }.joined(separator: "\n")
      throw ValidationError("unknown sample '\(name)'; the samples are:\n\(names)")
    }
    let instance = sample.make()
    let graph = ObjectGraph(reflecting: instance.root)
    let report = graph.report()
    print(report.isEmpty ? "no retain cycle reachable from \(graph.nodes[graph.root].shortTypeName)" : report)
    instance.breakCycles()
  }
}
