internal import RetainGraph

/// Who retains an object, from ``HeapCensus/retainers(of:)``: its direct holders and the shortest
/// path of strong references to it, as a leak trace.
///
/// Its `description` draws the path in the package's one leak-trace format (each object on its
/// line, each reference below its holder), and names no addresses:
/// ```
/// Image is referenced by 1 holder:
///   ImageCache.images[0]
/// Shortest retainer path, from the global ImageCache.shared:
///   ImageCache
///     ↓ images[0]
///   Image
/// ```
/// An object whose only holders are on its own retain cycle says so:
/// ```
/// Session is referenced by 1 holder:
///   Session.onEnd (closure) → capture 0
/// Held only by its own cycle: nothing else the census sees holds it, so it is a leak once the
/// variables that hold it now are gone:
///   Session
///     ↓ onEnd (closure) → capture 0
///   Session (loop closes)
/// ```
public struct RetainerReport: CustomStringConvertible, Sendable, Hashable, Codable {
  /// Where the retainer path starts.
  public enum Origin: Sendable, Hashable, Codable {
    /// Global storage: `static let shared`, a global `var` (its name).
    case global(String)
    /// An object that nothing the census sees retains: it is held from C storage, a task, a
    /// thread's stack (or the caller's own variable).
    case unseenHolder
    /// An object kept by a strong retain cycle that nothing the census sees holds.
    case retainCycle
    /// The object is on a strong retain cycle, and every strong holder the census sees is on it:
    /// held only by its own cycle (``path`` goes from the object around the loop back to it). A
    /// leak, once the variables that hold it now (the caller's included) are gone.
    case ownCycle
    /// A running task or a block Dispatch keeps for queued work, named by what it runs:
    /// `running task started in FireAndForget.start() (closure #1 in FireAndForget.start())`,
    /// `block queued on DispatchQueue(label: "work") from closure #1 in DelayedWork.start()`.
    case runtimeHolder(String)
    /// No strong holder at all is seen: only the caller (or something unseen) holds the object.
    case none
  }

  /// The object's short type name.
  public var typeName: String
  /// Every reference to the object the census found, globals first, then by holder and label.
  public var retainers: [Retainer]
  /// Where ``path`` starts.
  public var origin: Origin
  /// The shortest path of strong references to the object from ``origin``, each step a reference
  /// with its holder, kind, ownership and target; empty for ``Origin/none`` and when a global holds
  /// the object directly.
  public var path: [TraceStep]
  /// Notes: globals that only may hold the object (a number equal to its address), holders seen only
  /// as a word, and what the walk could not see.
  public var notes: [Note]
  /// Where the object was allocated (function names, innermost first), when the census ran with
  /// `recordingBacktraces: true`; nil otherwise.
  public var allocationBacktrace: [String]? = nil

  /// How many allocation frames ``description`` shows.
  static let shownFrames = 8

  /// The holder as one line: `ImageCache.shared.images[0]`, `Registry.presenters[0] (held from
  /// outside the census)`, `a running task started in Feed.start() (closure #1 in Feed.start())`;
  /// nil when nothing holds it.
  public var holderPath: String? {
    switch origin {
    case .global(let name):
      return ([name] + path.map(\.label)).joined(separator: ".")
    case .runtimeHolder(let name):
      // The first step is the holder's own closure capturing: the holder is named by that closure.
      let rest = path.dropFirst().map(\.label)
      return "a \(name)" + (rest.isEmpty ? "" : ", through \(rest.joined(separator: "."))")
    case .ownCycle:
      guard let first = path.first else { return nil }
      return ([first.holder] + path.map(\.label)).joined(separator: ".")
        + " (its own retain cycle, which nothing else holds)"
    case .unseenHolder, .retainCycle:
      guard let first = path.first else { return nil }
      let chain = ([first.holder] + path.map(\.label)).joined(separator: ".")
      return chain
        + (origin == .retainCycle
          ? " (in a retain cycle nothing else holds)" : " (held by something the census cannot see)")
    case .none:
      return nil
    }
  }

  /// The trace: the direct holders, then the shortest retainer path, one step per line.
  public var description: String {
    var lines: [String] = []
    if retainers.isEmpty {
      lines.append("\(typeName) is referenced by nothing the census sees.")
    } else {
      lines.append(
        "\(typeName) is referenced by \(retainers.count) holder\(retainers.count == 1 ? "" : "s"):")
      for retainer in retainers {
        let name = retainer.heldBy.name
        let place =
          retainer.heldBy.isGlobal
          ? "\(name) (global)"
          : retainer.isWordOnly ? "\(name) (a word of its memory)" : "\(name).\(retainer.label)"
        lines.append("  \(place)\(retainer.ownership == .strong ? "" : " (\(retainer.ownership.rawValue))")")
      }
    }
    var start = path.first?.holder ?? typeName
    switch origin {
    case .global(let name):
      lines.append("Shortest retainer path, from the global \(name):")
    case .runtimeHolder(let name):
      lines.append("Shortest retainer path, held by a \(name):")
      start = name
    case .unseenHolder:
      lines.append(
        "Shortest retainer path, from a holder the census cannot see (C storage, a task, a thread's stack):")
    case .retainCycle:
      lines.append("Shortest retainer path, from a retain cycle that nothing the census sees holds:")
    case .ownCycle:
      lines.append(
        "Held only by its own cycle: nothing else the census sees holds it, so it is a leak once the variables "
          + "that hold it now are gone:")
    case .none:
      lines.append(
        "No strong holder is seen: only a holder the census cannot see (C storage, a task, a thread's "
          + "stack, the caller's variable) keeps it.")
    }
    if origin != .none {
      // The one trace format (LeakTrace): each object on its line, each reference below its holder.
      lines += LeakTrace.lines(
        start: start, hops: path.map { (label: $0.label, ownership: $0.ownership, target: $0.target) },
        indent: "  ",
        closesLoop: origin == .ownCycle)
    }
    lines += notes.map { "Note: \($0)" }
    if let frames = allocationBacktrace, !frames.isEmpty {
      lines.append("Allocated in:")
      lines += frames.prefix(Self.shownFrames).map { "  \($0)" }
    }
    return lines.joined(separator: "\n")
  }
}
