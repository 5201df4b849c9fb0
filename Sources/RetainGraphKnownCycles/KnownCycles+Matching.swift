package import RetainGraph

extension KnownCycles {
  /// What a known-cycles file says of the cycles found: which pass as known, which fail (new, or
  /// their entry expired), which entries found nothing.
  package struct Verdict: Sendable {
    /// A cycle found, by its number (from 0), its signature and its entry.
    package struct Found: Sendable {
      package var index: Int
      package var signature: CycleSignature
      package var entry: Entry?
    }
    /// Cycles the file lists, unexpired: they pass.
    package var known: [Found] = []
    /// Cycles whose entry has expired: they fail, with the entry's reason.
    package var expired: [Found] = []
    /// Cycles the file does not list: they fail.
    package var new: [Found] = []
    /// Entries no cycle found matched: the file can lose them.
    package var gone: [Entry] = []
    /// The file's path.
    package var path: String

    /// Whether a cycle fails: a new one, or one whose entry expired.
    package var fails: Bool { !new.isEmpty || !expired.isEmpty }
  }

  /// Matches the cycles found against the entries.
  /// - Parameters:
  ///   - cycles: each cycle's number (from 0, as its report numbers it less one) and signature.
  ///   - today: the day (`YYYY-MM-DD`) the expiry dates are compared with.
  /// - Returns: the verdict.
  package func verdict(on cycles: [(index: Int, signature: CycleSignature)], today: String) -> Verdict {
    var byHash: [String: Entry] = [:]
    for entry in entries where byHash[entry.signature] == nil { byHash[entry.signature] = entry }
    var verdict = Verdict(path: path)
    var matched: Set<String> = []
    for (index, signature) in cycles {
      let hash = signature.description
      guard let entry = byHash[hash] else {
        verdict.new.append(Verdict.Found(index: index, signature: signature, entry: nil))
        continue
      }
      matched.insert(hash)
      let found = Verdict.Found(index: index, signature: signature, entry: entry)
      if entry.hasExpired(on: today) { verdict.expired.append(found) } else { verdict.known.append(found) }
    }
    verdict.gone = entries.filter { !matched.contains($0.signature) }
    return verdict
  }
}

extension KnownCycles.Verdict {
  /// The verdict as lines for a failure message or `check`'s output, each cycle numbered as the
  /// report numbers it (`cycle 2`), named by its types:
  /// ```
  /// known cycles (.retain-graph-known.json):
  /// cycle 1 (Interactor, Presenter), signature 3f0c2e8a1b5d7c94: new, not in the file
  /// cycle 2 (Child, Parent), signature 8c1f0d2a9b3e4f57: known (line 3): the parent is rewritten
  /// cycle 3 (Cart, Item), signature 0a1b2c3d4e5f6a7b: its entry (line 10) expired on 2026-01-31: …
  /// no longer found: signature 77aa… (Old, Thing), line 17: remove its entry
  /// ```
  /// - Parameters:
  ///   - noun: what a cycle is called (`cycle`, `leaked cycle`).
  ///   - goneWhere: what the note on entries no longer found adds (where they were not found).
  /// - Returns: the lines.
  package func lines(noun: String = "cycle", goneWhere: String = "") -> [String] {
    var lines = ["known cycles (\(path)):"]
    let all = (new + expired + known).sorted { $0.index < $1.index }
    for found in all {
      let head =
        "\(noun) \(found.index + 1) (\(Self.types(of: found.signature))), signature \(found.signature)"
      guard let entry = found.entry else {
        lines.append("\(head): new, not in the file")
        continue
      }
      if let expires = entry.expires, expired.contains(where: { $0.index == found.index }) {
        lines.append("\(head): its entry (line \(entry.line)) expired on \(expires): \(entry.reason)")
      } else {
        lines.append("\(head): known (line \(entry.line)): \(entry.reason)")
      }
    }
    for entry in gone {
      let types = entry.types.isEmpty ? "" : " (\(entry.types.joined(separator: ", ")))"
      lines.append(
        "no longer found\(goneWhere): signature \(entry.signature)\(types), line \(entry.line): remove its entry"
      )
    }
    return lines
  }

  /// The types a signature names (its `object` lines), without repeats, sorted.
  package static func types(of signature: CycleSignature) -> String {
    let prefix = "object "
    let names = signature.text.split(separator: "\n").filter { $0.hasPrefix(prefix) }.map {
      String($0.dropFirst(prefix.count))
    }
    return Array(Set(names)).sorted().joined(separator: ", ")
  }
}
