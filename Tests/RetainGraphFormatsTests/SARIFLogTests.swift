import Foundation
import RetainGraphFormats
import RetainGraphTestSupport
import Testing

/// The SARIF log and the JSON writer, on values made by hand: the log read back with Foundation,
/// the writer's bytes against `JSONEncoder`'s (an independent writer of the same form).
@Suite struct SARIFLogTests {
  static let log = SARIFLog(
    rules: [
      .init(id: "retain-cycle/backReference", description: "A back reference closes a retain cycle."),
      .init(id: "retain-cycle/closureCapture", description: "A closure captures strongly."),
    ],
    results: [
      .init(
        location: .init(file: "Sources/App/Cart View#1.swift", line: 12, column: 9), ruleIndex: 1,
        message: "capture [weak self]", fingerprints: ["b/v1": "two", "a/v1": "one"]),
      .init(
        location: .init(file: "/src/App.swift", line: 0, column: nil), ruleIndex: 0, message: "m",
        fingerprints: [:]),
      .init(location: nil, ruleIndex: 0, message: "no place", fingerprints: [:]),
    ],
    toolVersion: "1.2.3-test")

  @Test func aLogReadsBackAsWritten() throws {
    let data = Data(Self.log.data())
    assertGolden(String(decoding: data, as: UTF8.self), named: "log", pathExtension: "sarif")
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(object["version"] as? String == "2.1.0")
    let run = try #require((object["runs"] as? [[String: Any]])?.first)
    let driver = try #require((run["tool"] as? [String: Any])?["driver"] as? [String: Any])
    #expect(driver["name"] as? String == "retain-graph")
    #expect(driver["version"] as? String == "1.2.3-test")
    let rules = try #require(driver["rules"] as? [[String: Any]])
    #expect(
      rules.map { $0["id"] as? String } == ["retain-cycle/backReference", "retain-cycle/closureCapture"])
    let results = try #require(run["results"] as? [[String: Any]])
    #expect(
      results.map { $0["ruleId"] as? String } == [
        "retain-cycle/closureCapture", "retain-cycle/backReference", "retain-cycle/backReference",
      ])
    #expect(results.map { $0["ruleIndex"] as? Int } == [1, 0, 0])
    let places = results.map {
      ($0["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any]
    }
    #expect(
      (places[0]?["artifactLocation"] as? [String: String])
        == ["uri": "Sources/App/Cart%20View%231.swift", "uriBaseId": "%SRCROOT%"])
    #expect((places[0]?["region"] as? [String: Int]) == ["startLine": 12, "startColumn": 9])
    // An absolute path is a file URI with no base; line 0 has no region; no location, no locations.
    #expect((places[1]?["artifactLocation"] as? [String: String]) == ["uri": "file:///src/App.swift"])
    #expect(places[1]?["region"] == nil)
    #expect(results[2]["locations"] == nil)
    #expect((results[0]["partialFingerprints"] as? [String: String]) == ["a/v1": "one", "b/v1": "two"])
  }

  /// The writer's bytes are `JSONEncoder`'s (pretty-printed, sorted keys, slashes unescaped) for
  /// nested objects and arrays, empty ones, and strings with every kind of character.
  @Test func theJSONWriterWritesWhatJSONEncoderWrites() throws {
    struct Value: Encodable {
      var a: [String]
      var b: Int
      var c: [String: Int]
      var d: [Int]
      var e: Bool
    }
    let hostile = ["quote \" back \\ slash / tab \t nl \n cr \r bell \u{7} del \u{7F}", "é 日本 🐈", ""]
    let value = Value(a: hostile, b: -42, c: ["x": 1, "a": 2], d: [], e: true)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let expected = String(decoding: try encoder.encode(value), as: UTF8.self)

    var json = JSONWriter()
    json.beginObject()
    json.key("a")
    json.beginArray()
    for text in hostile {
      json.element()
      json.string(text)
    }
    json.endArray()
    json.member("b", -42)
    json.key("c")
    json.beginObject()
    json.member("a", 2)
    json.member("x", 1)
    json.endObject()
    json.key("d")
    json.beginArray()
    json.endArray()
    json.key("e")
    json.boolean(true)
    json.endObject()
    #expect(String(decoding: json.bytes, as: UTF8.self) == expected)
  }
}
