/// Writes ``ObjectGraph/sarifData()``: a SARIF 2.1.0 log (OASIS, "Static Analysis Results
/// Interchange Format Version 2.1.0") of one run, one rule per ``Cycle/Break/Idiom`` and one
/// result per diagnostic, through ``JSONWriter`` (keys sorted, deterministic).
struct SARIFWriter {
  let diagnostics: [Diagnostic]

  /// The schema the log names (optional in SARIF; editors validate with it).
  static let schema =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
  /// The base a relative path is under: the package root, as code-scanning tools name it.
  static let sourceRoot = "%SRCROOT%"

  /// The rule id of an idiom: `retain-cycle/closureCapture`.
  static func ruleID(_ idiom: Cycle.Break.Idiom) -> String { "retain-cycle/\(idiom.rawValue)" }

  /// What each rule finds, one sentence (the idiom's, as ``Cycle/Break/Idiom`` documents it).
  static func ruleDescription(_ idiom: Cycle.Break.Idiom) -> String {
    switch idiom {
    case .closureCapture:
      "A closure captures an object of its retain cycle strongly: capture it weakly ([weak self])."
    case .methodReference:
      "A stored method reference retains its object in a retain cycle: store a closure capturing [weak self]."
    case .backReference:
      "A back reference (delegate, parent, owner, output, observer) closes a retain cycle: make it weak."
    case .structure:
      "A reference of a retain cycle with no idiom of its own: weaken it, or end it when done."
    case .libraryReference:
      "A library's object holds yours in a retain cycle: give it a [weak self] closure or end what holds it."
    }
  }

  func data() -> [UInt8] {
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
    let idioms = Cycle.Break.Idiom.allCases
    json.beginObject()
    json.key("results")
    json.beginArray()
    for diagnostic in diagnostics {
      json.element()
      result(diagnostic, ruleIndex: idioms.firstIndex(of: diagnostic.idiom) ?? 0, &json)
    }
    json.endArray()
    json.key("tool")
    json.beginObject()
    json.key("driver")
    json.beginObject()
    json.member("name", "retain-graph")
    json.key("rules")
    json.beginArray()
    for idiom in idioms {
      json.element()
      json.beginObject()
      json.key("defaultConfiguration")
      json.beginObject()
      json.member("level", "warning")
      json.endObject()
      json.member("id", Self.ruleID(idiom))
      json.key("shortDescription")
      json.beginObject()
      json.member("text", Self.ruleDescription(idiom))
      json.endObject()
      json.endObject()
    }
    json.endArray()
    json.endObject()
    json.endObject()
    json.endObject()
  }

  private func result(_ diagnostic: Diagnostic, ruleIndex: Int, _ json: inout JSONWriter) {
    json.beginObject()
    json.member("level", "warning")
    if let location = diagnostic.location {
      json.key("locations")
      json.beginArray()
      json.element()
      physicalLocation(location, &json)
      json.endArray()
    }
    json.key("message")
    json.beginObject()
    json.member("text", diagnostic.message)
    json.endObject()
    // Code-scanning tools match a result across runs by these: the cycle (its types and
    // references) and which of its fixes.
    json.key("partialFingerprints")
    json.beginObject()
    json.member("retainCycleFix/v1", diagnostic.advice.description)
    json.member("retainCycleSignature/v1", diagnostic.signature.description)
    json.endObject()
    json.member("ruleId", Self.ruleID(diagnostic.idiom))
    json.member("ruleIndex", ruleIndex)
    json.endObject()
  }

  /// `{"physicalLocation": {"artifactLocation": {"uri", "uriBaseId"}, "region": {…}}}`.
  private func physicalLocation(_ location: CodeLocation, _ json: inout JSONWriter) {
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
