// A dump's JSON: its values, and beside them the text made from them for readers that do not link
// the census (`retain-graph leaks` prints `leaksText`, `retain-graph diff` each growth's
// `holderPath`). The text is written, never read back: it is made from the values again.

extension CensusDump {
  private enum CodingKeys: String, CodingKey {
    case format, version, time, pid, number, liveObjects, counts, leaks, leaksText, growth, notes
  }

  /// Reads a dump of the ``currentVersion``.
  /// - Parameter decoder: the decoder.
  /// - Throws: `DecodingError` when a field is missing or of another type, or the dump is of another
  ///   version (version 1 held its leaks and holders as text: `retain-graph leaks` and `diff` read it).
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    format = try container.decode(String.self, forKey: .format)
    version = try container.decode(Int.self, forKey: .version)
    guard version == Self.currentVersion else {
      throw DecodingError.dataCorruptedError(
        forKey: .version, in: container,
        debugDescription:
          "a census dump of version \(version); this library reads version \(Self.currentVersion) "
          + "(retain-graph leaks and diff read version 1 too)")
    }
    time = try container.decode(String.self, forKey: .time)
    pid = try container.decode(Int32.self, forKey: .pid)
    number = try container.decode(Int.self, forKey: .number)
    liveObjects = try container.decode(Int.self, forKey: .liveObjects)
    counts = try container.decode([TypeCount].self, forKey: .counts)
    leaks = try container.decode(LeakReport.self, forKey: .leaks)
    growth = try container.decode([Growth].self, forKey: .growth)
    notes = try container.decode([Note].self, forKey: .notes)
  }

  /// Writes the dump: its values, and its leak report's text as `leaksText`.
  /// - Parameter encoder: the encoder.
  /// - Throws: what the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(format, forKey: .format)
    try container.encode(version, forKey: .version)
    try container.encode(time, forKey: .time)
    try container.encode(pid, forKey: .pid)
    try container.encode(number, forKey: .number)
    try container.encode(liveObjects, forKey: .liveObjects)
    try container.encode(counts, forKey: .counts)
    try container.encode(leaks, forKey: .leaks)
    try container.encode(leaks.description, forKey: .leaksText)
    try container.encode(growth, forKey: .growth)
    try container.encode(notes, forKey: .notes)
  }
}

extension CensusDump.Growth {
  private enum CodingKeys: String, CodingKey {
    case typeName, before, after, retainers, skipped, holderPath
  }

  /// Reads a growth.
  /// - Parameter decoder: the decoder.
  /// - Throws: `DecodingError` when a field is missing or of another type.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    typeName = try container.decode(String.self, forKey: .typeName)
    before = try container.decode(Int.self, forKey: .before)
    after = try container.decode(Int.self, forKey: .after)
    retainers = try container.decodeIfPresent(RetainerReport.self, forKey: .retainers)
    skipped = try container.decodeIfPresent(Skip.self, forKey: .skipped)
  }

  /// Writes the growth: its values, and its holder's line as `holderPath` when there is one.
  /// - Parameter encoder: the encoder.
  /// - Throws: what the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(typeName, forKey: .typeName)
    try container.encode(before, forKey: .before)
    try container.encode(after, forKey: .after)
    try container.encodeIfPresent(retainers, forKey: .retainers)
    try container.encodeIfPresent(skipped, forKey: .skipped)
    try container.encodeIfPresent(holderPath, forKey: .holderPath)
  }
}
