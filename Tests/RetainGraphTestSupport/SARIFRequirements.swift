internal import Foundation

/// The requirements of the SARIF 2.1.0 standard (OASIS, "Static Analysis Results Interchange Format
/// (SARIF) Version 2.1.0", its sections on the sarifLog, run, tool, toolComponent,
/// reportingDescriptor, result, message, location, physicalLocation, artifactLocation and region
/// objects) that a log of retain-graph's shape must meet, written from the standard's text, not
/// from the writer: applied to every SARIF text the tests make.
///
/// - `$schema`, optional: when present, a string that is a URI.
/// - `version`, REQUIRED: the string `"2.1.0"`.
/// - `runs`, REQUIRED: an array (or null) of run objects.
/// - `run.tool`, REQUIRED; `tool.driver`, REQUIRED; `toolComponent.name`,
///   REQUIRED, a string; `toolComponent.version`, when present, a string.
/// - `toolComponent.rules`: an array of unique reportingDescriptor objects;
///   `reportingDescriptor.id`, REQUIRED, a string; rule ids unique.
/// - `result.message`, REQUIRED: a message object; `message.text` (a plain text
///   message has it), a string.
/// - `result.ruleId` and `result.ruleIndex`: when both are present, the rule at
///   `ruleIndex` has that id; `ruleIndex` ≥ 0 and within `rules`.
/// - `result.level`: one of `none`, `note`, `warning`, `error`.
/// - `result.locations`: an array of location objects; `physicalLocation`;
///   `artifactLocation`; `artifactLocation.uri`: a valid URI reference
///   (RFC 3986 §4.1); `uriBaseId`: a string.
/// - `region.startLine` ≥ 1; `region.startColumn` ≥ 1; integers.
/// - `result.partialFingerprints`: an object whose values are strings.
package enum SARIFRequirements {
  /// The requirements `log` (parsed JSON) does not meet, each saying where; empty when it meets them.
  package static func violations(of log: Any) -> [String] {
    var found: [String] = []
    guard let log = log as? [String: Any] else { return ["the log is not a JSON object"] }
    if let schema = log["$schema"], !((schema as? String).map(isURI) ?? false) {
      found.append("$schema is not a URI: \(schema)")
    }
    if log["version"] as? String != "2.1.0" { found.append("version is not \"2.1.0\"") }
    guard let runs = log["runs"] else { return found + ["runs is missing"] }
    if runs is NSNull { return found }
    guard let runList = runs as? [Any] else { return found + ["runs is not an array"] }
    for (number, run) in runList.enumerated() {
      found += violations(ofRun: run, at: "runs[\(number)]")
    }
    return found
  }

  private static func violations(ofRun run: Any, at path: String) -> [String] {
    guard let run = run as? [String: Any] else { return ["\(path) is not an object"] }
    var found: [String] = []
    guard let tool = run["tool"] as? [String: Any] else { return ["\(path).tool is missing"] }
    guard let driver = tool["driver"] as? [String: Any] else { return ["\(path).tool.driver is missing"] }
    if !(driver["name"] is String) { found.append("\(path).tool.driver.name is missing") }
    if let version = driver["version"], !(version is String) {
      found.append("\(path).tool.driver.version is not a string")
    }
    var ruleIDs: [String] = []
    if let rules = driver["rules"] {
      guard let rules = rules as? [Any] else { return found + ["\(path).tool.driver.rules is not an array"] }
      for (number, rule) in rules.enumerated() {
        guard let id = (rule as? [String: Any])?["id"] as? String else {
          found.append("\(path).tool.driver.rules[\(number)].id is missing")
          continue
        }
        if ruleIDs.contains(id) { found.append("\(path).tool.driver.rules: the id \(id) is not unique") }
        ruleIDs.append(id)
      }
    }
    if let results = run["results"], !(results is NSNull) {
      guard let results = results as? [Any] else { return found + ["\(path).results is not an array"] }
      for (number, result) in results.enumerated() {
        found += violations(ofResult: result, at: "\(path).results[\(number)]", ruleIDs: ruleIDs)
      }
    }
    return found
  }

  private static func violations(ofResult result: Any, at path: String, ruleIDs: [String]) -> [String] {
    guard let result = result as? [String: Any] else { return ["\(path) is not an object"] }
    var found: [String] = []
    if !((result["message"] as? [String: Any])?["text"] is String) {
      found.append("\(path).message.text is missing")
    }
    if let level = result["level"], !["none", "note", "warning", "error"].contains(level as? String ?? "") {
      found.append("\(path).level is not none, note, warning or error: \(level)")
    }
    if let index = result["ruleIndex"] {
      guard let index = index as? Int, ruleIDs.indices.contains(index) else {
        return found + ["\(path).ruleIndex is not an index of the rules: \(index)"]
      }
      if let id = result["ruleId"], id as? String != ruleIDs[index] {
        found.append("\(path).ruleId \(id) is not the id of rules[\(index)], \(ruleIDs[index])")
      }
    }
    if let fingerprints = result["partialFingerprints"] {
      let values = (fingerprints as? [String: Any])?.values
      if values == nil || values?.contains(where: { !($0 is String) }) == true {
        found.append("\(path).partialFingerprints is not an object of strings")
      }
    }
    if let locations = result["locations"] {
      guard let locations = locations as? [Any] else { return found + ["\(path).locations is not an array"] }
      for (number, location) in locations.enumerated() {
        found += violations(ofLocation: location, at: "\(path).locations[\(number)]")
      }
    }
    return found
  }

  private static func violations(ofLocation location: Any, at path: String) -> [String] {
    guard let location = location as? [String: Any] else { return ["\(path) is not an object"] }
    guard let physical = location["physicalLocation"] else { return [] }
    guard let physical = physical as? [String: Any] else {
      return ["\(path).physicalLocation is not an object"]
    }
    var found: [String] = []
    if let artifact = physical["artifactLocation"] {
      let artifact = artifact as? [String: Any] ?? [:]
      if let uri = artifact["uri"], !((uri as? String).map(isURIReference) ?? false) {
        found.append("\(path).physicalLocation.artifactLocation.uri is not a URI reference: \(uri)")
      }
      if let base = artifact["uriBaseId"], !(base is String) {
        found.append("\(path).physicalLocation.artifactLocation.uriBaseId is not a string")
      }
    }
    if let region = physical["region"] {
      let region = region as? [String: Any] ?? [:]
      for key in ["startLine", "startColumn"] {
        if let value = region[key], ((value as? Int) ?? 0) < 1 {
          found.append("\(path).physicalLocation.region.\(key) is not an integer ≥ 1: \(value)")
        }
      }
    }
    return found
  }

  /// A URI (RFC 3986 §3): a scheme, `:`, then what a URI reference allows.
  package static func isURI(_ text: String) -> Bool {
    guard let colon = text.firstIndex(of: ":"), isURIReference(text) else { return false }
    return isScheme(text[..<colon])
  }

  /// RFC 3986 §4.1: a URI or a relative reference: only unreserved, reserved and percent-encoded
  /// characters (`%` and two hexadecimal digits), and in a relative reference no `:` in the first
  /// path segment (§4.2: it would read as a scheme).
  package static func isURIReference(_ text: String) -> Bool {
    let allowed = Set(
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=".unicodeScalars)
    let scalars = Array(text.unicodeScalars)
    var index = 0
    while index < scalars.count {
      if scalars[index] == "%" {
        guard index + 2 < scalars.count, scalars[index + 1].properties.isASCIIHexDigit,
          scalars[index + 2].properties.isASCIIHexDigit
        else { return false }
        index += 3
        continue
      }
      guard allowed.contains(scalars[index]) else { return false }
      index += 1
    }
    let firstSegment = text.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    // A colon in the first segment is only a scheme's end.
    guard let colon = firstSegment.firstIndex(of: ":") else { return true }
    return isScheme(firstSegment[..<colon])
  }

  /// RFC 3986 §3.1: a letter, then letters, digits, `+`, `-`, `.`.
  private static func isScheme(_ text: Substring) -> Bool {
    guard let first = text.unicodeScalars.first, isLetter(first) else { return false }
    return text.unicodeScalars.allSatisfy {
      isLetter($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)
    }
  }

  private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
    ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
  }
}
