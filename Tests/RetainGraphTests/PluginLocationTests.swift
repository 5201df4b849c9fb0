import Foundation
import RetainGraph
import Samples
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A library opened with `dlopen` after the first location lookup (a plugin) is searched too: the
/// list of images searched for debug information is taken anew when the loader's list changed.
/// Built here from source with the toolchain's `swiftc -g`, opened, and its cycle walked: the fix
/// points at the closure's line in the plugin's own file.
@Suite struct PluginLocationTests {
  static let source = """
    public final class Plugin {
      public var handler: (() -> Void)?
      public init() {}
    }

    @_cdecl("retain_graph_test_plugin_cycle")
    public func pluginCycle() -> UnsafeMutableRawPointer {
      let plugin = Plugin()
      plugin.handler = {
        _ = plugin
      }
      return Unmanaged.passRetained(plugin).toOpaque()
    }

    @_cdecl("retain_graph_test_plugin_break")
    public func pluginBreak(_ plugin: UnsafeMutableRawPointer) {
      Unmanaged<Plugin>.fromOpaque(plugin).takeUnretainedValue().handler = nil
    }
    """

  #if BinaryReaders
    @Test func aLibraryOpenedLaterIsSearched() throws {
      // A lookup first, so that the images are listed before the plugin is loaded.
      let before = try #require(Sample.named("viper-module")).make()
      defer { before.breakCycles() }
      #expect(ObjectGraph(reflecting: before.root).cycles.first?.fixPlan.first?.location != nil)

      let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("retain-graph-plugin-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: directory) }
      let file = directory.appendingPathComponent("Plugin.swift")
      try Self.source.write(to: file, atomically: true, encoding: .utf8)
      let library = directory.appendingPathComponent("libRetainGraphTestPlugin.so")
      let compiler = Process()
      compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      compiler.arguments = [
        "swiftc", "-emit-library", "-g", "-Onone", "-module-name", "RetainGraphTestPlugin", file.path, "-o",
        library.path,
      ]
      compiler.standardInput = FileHandle.nullDevice
      try compiler.run()
      compiler.waitUntilExit()
      try #require(compiler.terminationStatus == 0, "swiftc (from PATH) could not build the plugin")

      let handle = try #require(dlopen(library.path, RTLD_NOW), "\(String(cString: dlerror()))")
      let symbol = try #require(dlsym(handle, "retain_graph_test_plugin_cycle"))
      typealias Make = @convention(c) () -> UnsafeMutableRawPointer
      let made = unsafeBitCast(symbol, to: Make.self)()
      let plugin = Unmanaged<AnyObject>.fromOpaque(made).takeRetainedValue()
      let breaking = try #require(dlsym(handle, "retain_graph_test_plugin_break"))
      typealias Break = @convention(c) (UnsafeMutableRawPointer) -> Void
      defer { unsafeBitCast(breaking, to: Break.self)(made) }
      let graph = ObjectGraph(reflecting: plugin)
      let fix = try #require(graph.cycles.first?.fixPlan.first)
      #expect(fix.fix.contains("closure #1 in RetainGraphTestPlugin.pluginCycle()"), "\(graph.report())")
      let lines = Self.source.split(separator: "\n", omittingEmptySubsequences: false)
      let line = try #require(lines.firstIndex { $0.contains("plugin.handler = {") })
      #expect(fix.location == CodeLocation(file: file.path, line: line + 1), "\(graph.report())")
    }
  #endif
}
