public import RetainGraph

/// A census dump, as ``HeapCensus/writeDump(to:timeBudget:)`` writes it (JSON): what was alive in the process,
/// its leaked cycles, and what grew since the previous dump the process took.
///
/// The file is this type encoded as JSON (see <doc:CensusDumps> for every field). `retain-graph leaks
/// DUMP` prints its leaked cycles and `retain-graph diff OLD NEW` what grew between two dumps.
public struct CensusDump: Sendable, Hashable, Codable {
  /// The value of ``format``.
  public static let formatName = "retain-graph-census-dump"
  /// The version this library writes (the command line reads it and version 1). Version 2 holds
  /// the leaks, the holders and the notes as values (version 1 held their text).
  public static let currentVersion = 2

  /// A type whose live count grew since the previous dump.
  public struct Growth: Sendable, Hashable, Codable {
    /// The type's qualified name, as ``TypeCount/typeName``.
    public var typeName: String
    /// Its live count at the previous dump.
    public var before: Int
    /// Its live count at this dump.
    public var after: Int
    /// The retainer report of one instance allocated since the previous dump; nil when none was
    /// searched (``skipped`` says why).
    public var retainers: RetainerReport?
    /// Why no instance was searched; nil when one was.
    public var skipped: Skip?

    /// The searched instance's holder as one line (``RetainerReport/holderPath``); nil when none
    /// was searched or nothing holds it.
    public var holderPath: String? { retainers?.holderPath }

    /// Why a growth has no holder in the dump (its JSON value is the raw value).
    public enum Skip: String, Sendable, Hashable, Codable {
      /// The dump's time budget (``HeapCensus/dumpTimeBudget``) ran out before its search started.
      case timeBudget = "time budget"
      /// No instance allocated since the previous dump is a class instance alive now (closure
      /// contexts and boxes are reached through their holders, not searched for).
      case noClassInstance = "no class instance"
      /// The forked child that searched failed (``CensusDump/notes`` says how).
      case searchFailed = "search failed"
    }

    /// A growth, its holder not searched yet.
    /// - Parameters:
    ///   - typeName: the type's qualified name.
    ///   - before: its live count at the previous dump.
    ///   - after: its live count at this dump.
    ///   - retainers: its newest instance's retainer report.
    ///   - skipped: why no instance was searched.
    public init(
      typeName: String, before: Int, after: Int, retainers: RetainerReport? = nil, skipped: Skip? = nil
    ) {
      self.typeName = typeName
      self.before = before
      self.after = after
      self.retainers = retainers
      self.skipped = skipped
    }
  }

  /// Always ``formatName``.
  public var format: String
  /// The format's version: ``currentVersion``.
  public var version: Int
  /// When the dump was taken, ISO 8601 in UTC (`2026-11-27T18:02:11Z`).
  public var time: String
  /// The process's id.
  public var pid: Int32
  /// This dump's number among the dumps the process took (1 for the first).
  public var number: Int
  /// How many live objects the census recorded.
  public var liveObjects: Int
  /// Live objects by type, most numerous first (``HeapCensus/liveCounts(since:)``).
  public var counts: [TypeCount]
  /// The leaked cycles (``HeapCensus/leaks(since:timeout:)``); their text is its `description`.
  public var leaks: LeakReport
  /// The types that grew since the previous dump (most growth first); empty in the first dump.
  public var growth: [Growth]
  /// What the dump left out and why (holder searches the time budget left out, or that failed).
  public var notes: [Note]

  /// Something a dump left out, as a value; its `description` is the sentence.
  public enum Note: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The forked child that searched the holders failed, for `reason`.
    case searchesFailed(reason: String)
    /// The time budget ran out after `searched` holder searches: `notSearched` types that grew
    /// have no holder.
    case timeBudgetRanOut(searched: Int, notSearched: Int)

    public var description: String {
      switch self {
      case .searchesFailed(let reason): "the holder searches failed: \(reason)"
      case .timeBudgetRanOut(let searched, let left):
        "the time budget ran out after \(searched) holder search\(searched == 1 ? "" : "es"): "
          + "\(left) type\(left == 1 ? "" : "s") that grew \(left == 1 ? "has" : "have") no holder "
          + "(\"skipped\": \"time budget\"); a larger HeapCensus.dumpTimeBudget searches more"
      }
    }
  }

  /// Creates a dump.
  public init(
    format: String = CensusDump.formatName, version: Int = CensusDump.currentVersion, time: String,
    pid: Int32,
    number: Int, liveObjects: Int, counts: [TypeCount], leaks: LeakReport, growth: [Growth], notes: [Note]
  ) {
    self.format = format
    self.version = version
    self.time = time
    self.pid = pid
    self.number = number
    self.liveObjects = liveObjects
    self.counts = counts
    self.leaks = leaks
    self.growth = growth
    self.notes = notes
  }
}

/// Why ``HeapCensus/writeDump(to:timeBudget:)`` wrote no dump.
public enum CensusDumpError: Error, CustomStringConvertible, Sendable, Equatable {
  /// The census is not running (``HeapCensus/start(recordingBacktraces:)``), or this program does not
  /// link its interposer: there is nothing to dump.
  case censusNotRunning
  /// The leak count's forked child failed.
  case leakSearchFailed(ForkedWalkError)
  /// The file could not be written (nothing was written there).
  case cannotWrite(path: String, reason: String)
  /// The signal handler of ``HeapCensus/installDumpHandler(signal:directory:timeBudget:onDump:)``
  /// could not be set up: the system call and its reason.
  case cannotInstallHandler(String)

  public var description: String {
    switch self {
    case .censusNotRunning: "the heap census is not running: there is nothing to dump"
    case .leakSearchFailed(let error): "the leak count failed: \(error)"
    case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
    case .cannotInstallHandler(let reason): "cannot install the dump handler: \(reason)"
    }
  }
}
