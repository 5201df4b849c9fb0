// The commands need swift-argument-parser, which only the CommandLine trait brings (see
// WithoutCommandLine.swift for the executable built without it).
#if CommandLine
  import Foundation

  /// What `leaks` and `diff` read of a census dump (RetainGraphCensus's `CensusDump`, written by
  /// `HeapCensus.writeDump(to:)`), decoded here so that the command line does not link the census.
  struct CensusDumpFile: Decodable {
    static let formatName = "retain-graph-census-dump"
    /// The versions read: 1, and 2 (whose leaks, holders and notes are values; both carry the text
    /// read here, `leaksText` and each growth's `holderPath`).
    static let versions = 1...2
    /// The most bytes read from a dump (a dump of a million live types is far smaller).
    static let maximumSize = 256 << 20

    struct TypeCount: Decodable {
      var typeName: String
      var count: Int
    }

    struct Growth: Decodable {
      var typeName: String
      var before: Int
      var after: Int
      var holderPath: String?
      /// Why no holder was searched for (`time budget`, `no class instance`, `search failed`).
      var skipped: String?
    }

    var time: String
    var pid: Int32
    var number: Int
    var liveObjects: Int
    var counts: [TypeCount]
    var leaksText: String
    var growth: [Growth]

    /// The dump's leak report as it was encoded (for `--format json`).
    var leaksJSON: Data

    /// The fields read before the rest: which format and version the file says it is.
    private struct Header: Decodable {
      var format: String?
      var version: Int?
    }

    private struct LeakCount: Decodable {
      struct Leak: Decodable {}
      var leaks: [Leak]
    }

    /// How many leaked cycles the dump's leak report holds.
    var leakCount: Int

    /// Reads and validates the dump at `path`.
    /// - Throws: a `CommandFailure` naming the file and, for a malformed dump, the field.
    init(path: String) throws {
      let data = try Self.contents(of: path)
      let decoder = JSONDecoder()
      do {
        let header = try decoder.decode(Header.self, from: data)
        guard header.format == Self.formatName else {
          let found = header.format.map { "is \"\($0)\"" } ?? "is missing"
          throw CommandFailure(
            "\(path): field 'format' \(found), not \"\(Self.formatName)\": not a census dump")
        }
        guard let version = header.version, Self.versions.contains(version) else {
          let found = header.version.map { "is \($0)" } ?? "is missing"
          throw CommandFailure(
            "\(path): field 'version' \(found); this retain-graph reads census dumps of versions 1 and 2")
        }
        self = try decoder.decode(Self.self, from: data)
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        if let leaks = object?["leaks"],
          let json = try? JSONSerialization.data(
            withJSONObject: leaks, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        {
          leaksJSON = json
        }
      } catch let error as DecodingError {
        throw CommandFailure("\(path): \(Self.explain(error))")
      }
    }

    private enum CodingKeys: String, CodingKey {
      case time, pid, number, liveObjects, counts, leaks, leaksText, growth
    }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      time = try container.decode(String.self, forKey: .time)
      pid = try container.decode(Int32.self, forKey: .pid)
      number = try container.decode(Int.self, forKey: .number)
      liveObjects = try container.decode(Int.self, forKey: .liveObjects)
      counts = try container.decode([TypeCount].self, forKey: .counts)
      leakCount = try container.decode(LeakCount.self, forKey: .leaks).leaks.count
      leaksText = try container.decode(String.self, forKey: .leaksText)
      growth = try container.decode([Growth].self, forKey: .growth)
      leaksJSON = Data()
    }

    /// The file's bytes, at most ``maximumSize`` (an endless device is not read without bound).
    private static func contents(of path: String) throws -> Data {
      guard let handle = FileHandle(forReadingAtPath: path) else {
        let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file"
        throw CommandFailure("\(path): \(reason)")
      }
      defer { try? handle.close() }
      var data = Data()
      do {
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
          data.append(chunk)
          if data.count > maximumSize {
            throw CommandFailure("\(path): larger than \(maximumSize >> 20) MiB: not a census dump")
          }
        }
      } catch let failure as CommandFailure {
        throw failure
      } catch {
        throw CommandFailure("\(path): cannot be read (\(error.localizedDescription))")
      }
      return data
    }

    /// A decoding error in words, naming the field: `field 'counts[2].count' is missing`.
    private static func explain(_ error: DecodingError) -> String {
      switch error {
      case .keyNotFound(let key, let context):
        return "field '\(field(context.codingPath + [key]))' is missing: not a valid census dump"
      case .typeMismatch(let type, let context):
        return "field '\(field(context.codingPath))' is not \(typeName(type)): not a valid census dump"
      case .valueNotFound(let type, let context):
        return "field '\(field(context.codingPath))' is null, not \(typeName(type)): not a valid census dump"
      case .dataCorrupted(let context) where context.codingPath.isEmpty:
        return "not JSON: not a census dump"
      case .dataCorrupted(let context):
        return "field '\(field(context.codingPath))' is invalid: not a valid census dump"
      @unknown default:
        return "not a valid census dump"
      }
    }

    /// `counts[2].count`.
    private static func field(_ path: [any CodingKey]) -> String {
      var text = ""
      for key in path {
        if let index = key.intValue {
          text += "[\(index)]"
        } else {
          text += (text.isEmpty ? "" : ".") + key.stringValue
        }
      }
      return text
    }

    private static func typeName(_ type: Any.Type) -> String {
      let name = String(describing: type)
      if type == String.self { return "a string" }
      if type == Int.self || type == Int32.self { return "an integer" }
      if name.hasPrefix("Array<") { return "an array" }
      if name.hasPrefix("Dictionary<") { return "an object" }
      return "of the expected kind"
    }
  }
#endif
