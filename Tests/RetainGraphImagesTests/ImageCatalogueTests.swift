// The readers are built with the package trait BinaryReaders only (Package.swift).
#if BinaryReaders
  import Foundation
  import RetainGraphImages
  import Testing

  /// A function with a C name, to be found in this test binary's symbol table.
  @_cdecl("rg_images_tests_known_function")
  func knownFunction() -> Int32 { 42 }

  /// The catalogue on real images: this test binary, read once whatever path names it.
  struct ImageCatalogueTests {
    /// The loader and the symbol table agree on a function of this binary: the image that contains
    /// its address names it, at the offset from its base.
    @Test func aFunctionOfThisBinaryIsNamed() throws {
      let function: @convention(c) () -> Int32 = knownFunction
      let address = unsafeBitCast(function, to: UnsafeRawPointer.self)
      let (image, base) = try #require(ImageCatalogue.image(containing: address))
      let offset = UInt(bitPattern: address) - UInt(bitPattern: base)
      #expect(image.symbols.functions.name(at: offset) == "rg_images_tests_known_function")
      #expect(image.symbols.functions.extent(at: offset)?.start == offset)
      let byName = image.symbols.functions.entries { strcmp($0, "rg_images_tests_known_function") == 0 }
      #expect(byName.map(\.start) == [offset])
      // The loader's path and /proc/self/exe are one file: one image, mapped once.
      #expect(ImageCatalogue.image(atPath: "/proc/self/exe") === image)
      #expect(ImageCatalogue.image(atPath: image.path) === image)
      // Its writable segments are listed, under the path the loader gives the main program.
      #expect(Loader.writableSegments().contains { $0.path == "/proc/self/exe" && $0.end > $0.start })
    }

    /// A Swift function's mangled symbol, and the Swift runtime's local symbols of this binary.
    @Test func swiftSymbolsOfThisBinaryAreRead() {
      let image = ImageCatalogue.image(atPath: "/proc/self/exe")
      let mangled = image.symbols.functions.entries {
        strstr($0, "28aFunctionOfThisBinaryIsNamed") != nil && strncmp($0, "$s", 2) == 0
      }
      #expect(!mangled.isEmpty)
      // A test class's nominal type descriptor is looked up by name, at its symbol's offset.
      let descriptor = image.symbols.localSymbols["$s22RetainGraphImagesTests10OwnedBytesCMn"]
      #expect(descriptor != nil)
      #expect(
        descriptor.flatMap { image.symbols.data.name(at: $0) } == "$s22RetainGraphImagesTests10OwnedBytesCMn")
    }

    /// This binary's closures, looked up by address (their unit alone), are declared where the
    /// whole-image scan says: the same file and line for each.
    @Test func closuresByAddressAreWhereTheWholeScanSays() throws {
      let image = ImageCatalogue.image(atPath: "/proc/self/exe")
      let prefix = "$s22RetainGraphImagesTests"
      let closures = image.symbols.functions.entries {
        strncmp($0, prefix, prefix.utf8.count) == 0 && strstr($0, "fU_") != nil && strstr($0, "TA") == nil
      }
      try #require(closures.count >= 3)
      let whole = image.debugInfo.functionDeclarations { strncmp($0, prefix, prefix.utf8.count) == 0 }
      var compared = 0
      for closure in closures.prefix(40) {
        guard let expected = whole.first(where: { $0.mangledName == closure.name }) else { continue }
        let found = try image.debugInfo.functionDeclaration(
          at: closure.start &+ image.symbols.loadBase, linkageNames: [closure.name])
        #expect(found == expected)
        compared += 1
      }
      #expect(compared >= 3)
    }

    /// A file that is not an image, or no file, gives an image without symbols (asked again, the
    /// same one).
    @Test func whatCannotBeReadHasNoSymbols() throws {
      let missing = ImageCatalogue.image(atPath: "/nonexistent/image")
      #expect(missing.symbols.functions.name(at: 0) == nil)
      #expect(missing.debugInfo.functionsWithInlinedCode.isEmpty)
      #expect(ImageCatalogue.image(atPath: "/nonexistent/image") === missing)
      let text = FileManager.default.temporaryDirectory.appendingPathComponent("not-an-image-\(getpid()).txt")
      try Data(repeating: UInt8(ascii: "x"), count: 4096).write(to: text)
      defer { try? FileManager.default.removeItem(at: text) }
      let notAnImage = ImageCatalogue.image(atPath: text.path)
      #expect(notAnImage.symbols.localSymbols.isEmpty && notAnImage.symbols.loadBase == 0)
      #expect(notAnImage.debugInfo.functionsWithInlinedCode.isEmpty)
    }
  }
#endif
