/// Stores a lazy closure that captures `self` strongly: a cycle through the closure.
public final class LeakingPerson {
  public let name: String
  public lazy var greeting: () -> String = { "Hello \(self.name)!" }
  public init(name: String) { self.name = name }
}

/// The same, capturing `[unowned self]`: no cycle.
public final class Person {
  public let name: String
  public lazy var greeting: () -> String = { [unowned self] in "Hello \(self.name)!" }
  public init(name: String) { self.name = name }
}

extension Sample {
  static let lazyClosure = Sample(
    name: "lazy-closure", summary: "a lazy closure property capturing self strongly: a cycle", hasCycle: true
  ) {
    let person = LeakingPerson(name: "Ada")
    _ = person.greeting()
    return SampleInstance(root: person, objects: [person]) { [weak person] in person?.greeting = { "" } }
  }

  static let lazyClosureFixed = Sample(
    name: "lazy-closure-fixed", summary: "the same closure capturing [unowned self]: no cycle",
    hasCycle: false
  ) {
    let person = Person(name: "Ada")
    _ = person.greeting()
    return SampleInstance(root: person, objects: [person])
  }
}
