import ArgumentParser

@main
struct RetainGraphCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "retain-graph",
    abstract: "Find retain cycles in Swift object graphs and explain them.",
    subcommands: [SamplesCommand.self, SampleCommand.self]
  )
}
