internal import CGraphviz
public import Foundation
internal import Synchronization

/// Graphviz's libgvc, called in-process: DOT text in, SVG, PNG or PDF bytes out.
///
/// Graphviz keeps global state and is not thread-safe, so every call into it, from any thread, goes
/// through one process-wide lock; concurrent renders simply take turns. Graphviz's own error and
/// warning messages are captured instead of being printed to standard error, and quoted by the
/// ``RenderingError`` thrown when a render fails. The `dot` program is never started.
public enum Graphviz {
  /// Lays out DOT text with Graphviz's `dot` engine and renders it.
  ///
  /// ```swift
  /// let svg = try Graphviz.render(dot: "digraph { a -> b }", format: .svg)
  /// ```
  /// - Parameters:
  ///   - dot: one graph in the DOT language.
  ///   - format: the output format.
  /// - Returns: the rendered file's bytes.
  /// - Throws: ``RenderingError`` quoting Graphviz when the text is not valid DOT or Graphviz cannot
  ///   lay it out or render it.
  public static func render(dot: String, format: RenderFormat) throws(RenderingError) -> Data {
    if dot.utf8.contains(0) {
      throw RenderingError(.invalidDOT, "Graphviz could not read the DOT text: it contains a NUL character")
    }
    return try session.withLock { context throws(RenderingError) -> Data in
      let gvc = try GraphvizSession.prepare(&context)
      capturedMessages = ""
      defer { capturedMessages = "" }
      cgraphviz_reset_lexer()
      guard let graph = dot.withCString({ agmemread($0) }) else {
        throw RenderingError(
          .invalidDOT,
          "Graphviz could not read the DOT text: \(GraphvizSession.messages(or: "no graph found"))")
      }
      defer { agclose(graph) }
      guard gvLayout(gvc, graph, "dot") == 0 else {
        throw RenderingError(
          .layoutFailed,
          "Graphviz could not lay out the graph: \(GraphvizSession.messages(or: "gvLayout failed"))")
      }
      defer { gvFreeLayout(gvc, graph) }
      var bytes: UnsafeMutablePointer<CChar>?
      var length: UInt32 = 0
      let status = gvRenderData(gvc, graph, format.rawValue, &bytes, &length)
      defer { if let bytes { gvFreeRenderData(bytes) } }
      guard status == 0, let bytes, length > 0 else {
        throw RenderingError(
          .renderFailed,
          "Graphviz could not render \(format.rawValue): "
            + GraphvizSession.messages(or: "no output (is Graphviz's cairo plugin installed?)"))
      }
      return Data(bytes: bytes, count: Int(length))
    }
  }

  /// The Graphviz context, created on first use and kept for the life of the process. Every libgvc
  /// and cgraph call happens while this lock is held.
  private static let session = Mutex<OpaquePointer?>(nil)
}

/// Graphviz's messages for the render in progress. Only touched with `Graphviz.session` locked: by
/// the render itself, and by `collectMessage`, which Graphviz calls synchronously from inside it.
nonisolated(unsafe) private var capturedMessages = ""

/// Graphviz's error callback (`agusererrf`): appends to `capturedMessages` instead of printing.
private let collectMessage: agusererrf = { message in
  if let message { capturedMessages += String(cString: message) }
  return 0
}

/// GLib's `GLogFunc`: domain, level, message, user data.
private typealias GLogFunction =
  @convention(c) (UnsafePointer<CChar>?, UInt32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void

/// GLib's message handler for Pango, which Graphviz's cairo and pango plugins use to lay out and
/// draw labels: appends to `capturedMessages` instead of printing `(process:…): Pango-CRITICAL **: …`
/// to standard error. Only those plugins use Pango here, inside a render, with `Graphviz.session`
/// locked.
private let collectPangoMessage: GLogFunction = { domain, _, message, _ in
  guard let message else { return }
  capturedMessages += "\(domain.map { String(cString: $0) + ": " } ?? "")\(String(cString: message))\n"
}

/// Routes Pango's log domains to `collectPangoMessage`, once, before the plugins load. GLib is
/// looked up at run time: libgvc does not link it, its plugins do, and a Graphviz built without them
/// never loads it.
private enum PangoMessages {
  static func route() { _ = routed }

  private static let routed: Bool = {
    #if os(Linux)
      // Loaded here if the plugins have not loaded it yet: they will, and share this copy.
      guard let glib = dlopen("libglib-2.0.so.0", RTLD_NOW | RTLD_GLOBAL),
        let symbol = dlsym(glib, "g_log_set_handler")
      else { return false }
      typealias SetHandler =
        @convention(c) (UnsafePointer<CChar>?, UInt32, GLogFunction, UnsafeMutableRawPointer?) -> UInt32
      let setHandler = unsafeBitCast(symbol, to: SetHandler.self)
      // G_LOG_LEVEL_CRITICAL | WARNING | MESSAGE | INFO | DEBUG; an error (fatal) keeps GLib's handler.
      let levels: UInt32 = 0x08 | 0x10 | 0x20 | 0x40 | 0x80
      for domain in ["Pango", "PangoCairo", "PangoFT2"] {
        _ = setHandler(domain, levels, collectPangoMessage, nil)
      }
      return true
    #else
      return false
    #endif
  }()
}

private enum GraphvizSession {
  /// Routes Graphviz's messages to `collectMessage` and returns the context, creating it once.
  static func prepare(_ context: inout OpaquePointer?) throws(RenderingError) -> OpaquePointer {
    // Report warnings and errors through the callback: below the threshold, cgraph would append them
    // to a temporary file that grows for the life of the process.
    _ = agseterr(AGWARN)
    _ = agseterrf(collectMessage)
    if let context { return context }
    PangoMessages.route()
    // gvContext() loads the plugins listed in Graphviz's installed config (dot layout, core SVG
    // renderer, cairo for PNG and PDF).
    guard let created = gvContext() else {
      throw RenderingError(
        .graphvizUnavailable, "Graphviz could not create a context: \(messages(or: "gvContext failed"))")
    }
    context = created
    return created
  }

  /// The messages Graphviz gave during this render, one per line, or `fallback` when it said nothing.
  static func messages(or fallback: String) -> String {
    let lines = capturedMessages.split(whereSeparator: \.isNewline).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    let text = lines.filter { !$0.isEmpty }.joined(separator: "; ")
    return text.isEmpty ? fallback : text
  }
}
