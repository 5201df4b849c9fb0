/// A SARIF 2.1.0 log (OASIS, "Static Analysis Results Interchange Format Version 2.1.0") of one
/// run of `retain-graph`: its rules and one result per warning, written through ``JSONWriter`` (keys
/// sorted, deterministic). What the rules and results say is the caller's (the core's diagnostics).
package struct SARIFLog {
  /// A rule: what kind of problem a result is.
  package struct Rule {
    /// `retain-cycle/closureCapture`.
    package var id: String
    /// What the rule finds, one sentence.
    package var description: String

    package init(id: String, description: String) {
      self.id = id
      self.description = description
    }
  }

  /// A place in a source file: relative to the package root (`%SRCROOT%`) or absolute.
  package struct Location {
    package var file: String
    /// From 1; 0 or less for no region.
    package var line: Int
    package var column: Int?

    package init(file: String, line: Int, column: Int?) {
      self.file = file
      self.line = line
      self.column = column
    }
  }

  /// One warning.
  package struct Result {
    package var location: Location?
    /// The position of its rule in ``SARIFLog/rules``.
    package var ruleIndex: Int
    package var message: String
    /// What matches a result across runs (`partialFingerprints`): name and value.
    package var fingerprints: [String: String]

    package init(location: Location?, ruleIndex: Int, message: String, fingerprints: [String: String]) {
      self.location = location
      self.ruleIndex = ruleIndex
      self.message = message
      self.fingerprints = fingerprints
    }
  }

  package let rules: [Rule]
  package let results: [Result]
  /// The version of the tool that made the log (`tool.driver.version`): the package's version,
  /// which the core gives.
  package let toolVersion: String

  /// The schema the log names (optional in SARIF; editors validate with it).
  package static let schema =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
  /// The base a relative path is under: the package root, as code-scanning tools name it.
  package static let sourceRoot = "%SRCROOT%"

  package init(rules: [Rule], results: [Result], toolVersion: String) {
    self.rules = rules
    self.results = results
    self.toolVersion = toolVersion
  }

  package func data() -> [UInt8] {
    var json = JSONWriter()
    json.beginObject()
    json.member("$schema", Self.schema)
    json.key("runs")
    json.beginArray()
    json.element()
    run(&json)
    json.endArray()
    json.member("version", "2.1.0")
    json.endObject()
    json.bytes.append(0x0A)
    return json.bytes
  }

  private func run(_ json: inout JSONWriter) {
    json.beginObject()
    json.key("results")
    json.beginArray()
    for result in results {
      json.element()
      write(result, &json)
    }
    json.endArray()
    json.key("tool")
    json.beginObject()
    json.key("driver")
    json.beginObject()
    json.member("name", "retain-graph")
    json.key("rules")
    json.beginArray()
    for rule in rules {
      json.element()
      json.beginObject()
      json.key("defaultConfiguration")
      json.beginObject()
      json.member("level", "warning")
      json.endObject()
      json.member("id", rule.id)
      json.key("shortDescription")
      json.beginObject()
      json.member("text", rule.description)
      json.endObject()
      json.endObject()
    }
    json.endArray()
    json.member("version", toolVersion)
    json.endObject()
    json.endObject()
    json.endObject()
  }

  private func write(_ result: Result, _ json: inout JSONWriter) {
    json.beginObject()
    json.member("level", "warning")
    if let location = result.location {
      json.key("locations")
      json.beginArray()
      json.element()
      physicalLocation(location, &json)
      json.endArray()
    }
    json.key("message")
    json.beginObject()
    json.member("text", result.message)
    json.endObject()
    // Code-scanning tools match a result across runs by these: the cycle (its types and
    // references) and which of its fixes.
    json.key("partialFingerprints")
    json.beginObject()
    for (key, value) in result.fingerprints.sorted(by: { $0.key < $1.key }) { json.member(key, value) }
    json.endObject()
    json.member("ruleId", rules[result.ruleIndex].id)
    json.member("ruleIndex", result.ruleIndex)
    json.endObject()
  }

  /// `{"physicalLocation": {"artifactLocation": {"uri", "uriBaseId"}, "region": {…}}}`.
  private func physicalLocation(_ location: Location, _ json: inout JSONWriter) {
    json.beginObject()
    json.key("physicalLocation")
    json.beginObject()
    json.key("artifactLocation")
    json.beginObject()
    let isAbsolute = location.file.hasPrefix("/")
    json.member("uri", URIReference.of(path: location.file))
    if !isAbsolute { json.member("uriBaseId", Self.sourceRoot) }
    json.endObject()
    // SARIF's lines and columns start at 1: a region only when the line is one.
    if location.line >= 1 {
      json.key("region")
      json.beginObject()
      if let column = location.column, column >= 1 { json.member("startColumn", column) }
      json.member("startLine", location.line)
      json.endObject()
    }
    json.endObject()
    json.endObject()
  }
}

/// File paths as URI references (RFC 3986), as SARIF's `artifactLocation.uri` and the HTML page's
/// links take them.
package enum URIReference {
  /// A relative path as a relative reference (`Samples/ViperModule.swift`), an absolute one as a
  /// `file:` URI (`file:///src/App/Screen.swift`).
  package static func of(path: String) -> String {
    let encoded = percentEncoded(path)
    return path.hasPrefix("/") ? "file://" + encoded : encoded
  }

  /// `path` with every byte but the unreserved characters and `/` percent-encoded (its UTF-8), so
  /// a space, `%`, `:`, `#` or `?` in a name stays part of the path: a relative reference that
  /// resolves to the file, relative or absolute as the path is.
  package static func percentEncoded(_ path: String) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(path.utf8.count)
    for byte in path.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
        UInt8(ascii: "~"), UInt8(ascii: "/"):
        bytes.append(byte)
      default:
        bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
