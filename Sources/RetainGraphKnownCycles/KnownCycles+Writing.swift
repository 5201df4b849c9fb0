internal import Foundation
package import RetainGraph

extension KnownCycles {
  /// The entries of a baseline: one per distinct signature of `cycles` (each with its types and first
  /// fix), sorted by signature; an entry of `previous` for the same signature keeps its reason and
  /// expiry, the others get `reason` and `expires`.
  /// - Parameters:
  ///   - cycles: the cycles found (of every snapshot).
  ///   - reason: the reason of a new entry.
  ///   - expires: the expiry day of a new entry, if any.
  ///   - previous: the file the baseline replaces, if any.
  /// - Returns: the entries.
  package static func baseline(
    of cycles: [(signature: CycleSignature, fix: String?)], reason: String, expires: String?,
    previous: KnownCycles?
  ) -> [Entry] {
    var bySignature: [String: Entry] = [:]
    for (signature, fix) in cycles where bySignature[signature.description] == nil {
      let hash = signature.description
      let kept = previous?.entries.first { $0.signature == hash }
      bySignature[hash] = Entry(
        signature: hash, reason: kept?.reason ?? reason, expires: kept == nil ? expires : kept?.expires,
        types: Verdict.types(of: signature).split(separator: ", ").map(String.init), fix: fix)
    }
    return bySignature.values.sorted { $0.signature < $1.signature }
  }

  /// The file's text: keys sorted, two spaces of indent, one entry per cycle in the order given,
  /// a line feed at the end (what `retain-graph baseline` writes).
  package static func text(of entries: [Entry]) -> String {
    var lines = ["{", "  \"knownCycles\" : ["]
    for (number, entry) in entries.enumerated() {
      var fields: [String] = []
      if let expires = entry.expires { fields.append("\"expires\" : \(quoted(expires))") }
      if let fix = entry.fix { fields.append("\"fix\" : \(quoted(fix))") }
      fields.append("\"reason\" : \(quoted(entry.reason))")
      fields.append("\"signature\" : \(quoted(entry.signature))")
      if !entry.types.isEmpty {
        fields.append("\"types\" : [ \(entry.types.map(quoted).joined(separator: ", ")) ]")
      }
      lines.append("    {")
      for (index, field) in fields.enumerated() {
        lines.append("      " + field + (index == fields.count - 1 ? "" : ","))
      }
      lines.append("    }" + (number == entries.count - 1 ? "" : ","))
    }
    lines += ["  ],", "  \"version\" : \(version)", "}"]
    return lines.joined(separator: "\n") + "\n"
  }

  /// `text` as a JSON string: quotes, backslashes and control characters escaped.
  static func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case let control where control.value < 0x20:
        let hex = String(control.value, radix: 16)
        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}
