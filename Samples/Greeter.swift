/// Formats a greeting; holds nothing back.
public final class GreetingFormatter {
  public var punctuation = "!"
  public init() {}
}

/// A greeter with a formatter and a closure that captures only values: no cycle.
public final class Greeter {
  public let name: String
  public let formatter = GreetingFormatter()
  public let greet: () -> String

  public init(name: String) {
    self.name = name
    let punctuation = formatter.punctuation
    greet = { "Hello \(name)\(punctuation)" }
  }
}

extension Sample {
  static let greeter = Sample(
    name: "greeter", summary: "a greeter, its formatter and a closure capturing only values: no cycle",
    hasCycle: false
  ) {
    let greeter = Greeter(name: "Ada")
    return SampleInstance(root: greeter, objects: [greeter, greeter.formatter])
  }
}
