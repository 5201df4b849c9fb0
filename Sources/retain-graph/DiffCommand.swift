// The commands need swift-argument-parser, which only the CommandLine trait brings (see
// WithoutCommandLine.swift for the executable built without it).
#if CommandLine
  import ArgumentParser
  import Foundation

  struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "diff",
      abstract: "Print what grew between two census dumps, by type, with the holders of the growth.",
      discussion: """
        Compares the live counts by type of two census dumps (HeapCensus.writeDump(to:)) and prints \
        each type that grew, most growth first: its count before → after and the growth. Where the \
        NEW dump explains a type's growth (the holder of an instance allocated since the dump its \
        process took before it), the holder is printed below the type.

        Exit status: 0 when the dumps were compared (whether anything grew or not), 2 when a file is \
        missing or is not a census dump of version 1 or 2 (the message names the file and the field), or \
        the output cannot be written.

        Example:
          retain-graph diff before.json after.json
        """
    )

    @Argument(help: ArgumentHelp("The earlier census dump.", valueName: "old.json"))
    var old: String

    @Argument(help: ArgumentHelp("The later census dump.", valueName: "new.json"))
    var new: String

    @OptionGroup var outputOptions: DumpOutputOptions

    struct Growth: Encodable {
      var typeName: String
      var before: Int
      var after: Int
      var delta: Int
      var holderPath: String?
      /// Why the newer dump has no holder for it: `time budget` when its time budget ran out first.
      var skipped: String?
    }

    struct Dump: Encodable {
      var number: Int
      var pid: Int32
      var time: String
      var liveObjects: Int
    }

    struct Diff: Encodable {
      var old: Dump
      var new: Dump
      var growth: [Growth]
    }

    func run() throws {
      let oldDump = try CensusDumpFile(path: old)
      let newDump = try CensusDumpFile(path: new)
      let diff = Self.diff(oldDump, newDump)
      switch outputOptions.format {
      case .text:
        try outputOptions.emit(Data((Self.text(of: diff) + "\n").utf8))
      case .json:
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try outputOptions.emit(try encoder.encode(diff) + Data("\n".utf8))
      }
    }

    /// The types whose count grew from `old` to `new`, most growth first (ties by name), with the
    /// holders `new` names.
    static func diff(_ old: CensusDumpFile, _ new: CensusDumpFile) -> Diff {
      var before: [String: Int] = [:]
      for count in old.counts { before[count.typeName, default: 0] += count.count }
      var after: [String: Int] = [:]
      for count in new.counts { after[count.typeName, default: 0] += count.count }
      var holders: [String: String] = [:]
      var skipped: [String: String] = [:]
      for growth in new.growth {
        if let holder = growth.holderPath { holders[growth.typeName] = holder }
        if let reason = growth.skipped { skipped[growth.typeName] = reason }
      }
      let growth = after.compactMap { name, count -> Growth? in
        let earlier = before[name] ?? 0
        guard count > earlier else { return nil }
        return Growth(
          typeName: name, before: earlier, after: count, delta: count - earlier, holderPath: holders[name],
          skipped: skipped[name])
      }
      .sorted { ($0.delta, $1.typeName) > ($1.delta, $0.typeName) }
      func summary(_ dump: CensusDumpFile) -> Dump {
        Dump(number: dump.number, pid: dump.pid, time: dump.time, liveObjects: dump.liveObjects)
      }
      return Diff(old: summary(old), new: summary(new), growth: growth)
    }

    static func text(of diff: Diff) -> String {
      func name(_ dump: Dump) -> String { "dump \(dump.number) (pid \(dump.pid), \(dump.time))" }
      var lines = ["from \(name(diff.old)) to \(name(diff.new))"]
      if diff.old.pid != diff.new.pid {
        lines.append("note: the dumps come from different processes")
      }
      let live = diff.new.liveObjects - diff.old.liveObjects
      lines.append(
        "live objects: \(number(diff.old.liveObjects)) → \(number(diff.new.liveObjects)) (\(signed(live)))")
      if diff.growth.isEmpty {
        lines.append("no type grew")
        return lines.joined(separator: "\n")
      }
      let total = diff.growth.reduce(0) { $0 + $1.delta }
      lines.append(
        "\(diff.growth.count) type\(diff.growth.count == 1 ? "" : "s") grew, by \(number(total)) "
          + "object\(total == 1 ? "" : "s"):")
      for growth in diff.growth {
        lines.append("")
        lines.append(
          "\(growth.typeName): \(number(growth.before)) → \(number(growth.after)) (\(signed(growth.delta)))")
        if let holder = growth.holderPath {
          lines.append("  held by \(holder)")
        } else if growth.skipped == "time budget" {
          lines.append("  holder not searched: the dump's time budget ran out (HeapCensus.dumpTimeBudget)")
        }
      }
      return lines.joined(separator: "\n")
    }

    /// `+1,234` / `-5` / `0`.
    static func signed(_ value: Int) -> String {
      value > 0 ? "+" + number(value) : value < 0 ? "-" + number(-value) : "0"
    }

    /// `1234567` → `1,234,567`.
    static func number(_ value: Int) -> String {
      let digits = Array(String(value))
      var text = ""
      for (index, digit) in digits.enumerated() {
        if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
        text.append(digit)
      }
      return text
    }
  }
#endif
