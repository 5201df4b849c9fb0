// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  #if canImport(Glibc)
    internal import Glibc
  #elseif canImport(Musl)
    internal import Musl
  #elseif canImport(Darwin)
    internal import Darwin
  #endif

  /// What the readers ask of the loaded images by address: raw (mangled) names, data symbols, the
  /// DWARF facts of the function at an address. Demangling is the Swift runtime's (the core's
  /// `SymbolNames`).
  extension ImageCatalogue {
    /// The raw (mangled) name of the symbol whose function contains `address`: the dynamic symbol
    /// the loader names when it starts exactly there, otherwise the image's `.symtab`.
    package static func symbolName(at address: UnsafeRawPointer) -> String? {
      guard let info = Loader.lookUp(address) else { return nil }
      if let symbol = info.symbolName, info.symbolAddress == address {
        return String(cString: symbol)
      }
      guard let (image, base) = image(of: info) else { return nil }
      return image.symbols.functions.name(at: UInt(bitPattern: address) &- UInt(bitPattern: base))
    }

    /// The address of the data symbol (`STT_OBJECT`, local or global) named `name` exactly, e.g. an
    /// async function pointer `$s…Tu`, in the image that contains `address`; nil when it has none.
    package static func dataSymbol(named name: String, inImageContaining address: UnsafeRawPointer)
      -> UnsafeRawPointer?
    {
      guard let (image, base) = image(containing: address) else { return nil }
      let found = name.withCString { wanted in image.symbols.data.entries { strcmp($0, wanted) == 0 } }
      guard let start = found.first?.start else { return nil }
      return base + Int(start)
    }

    /// The debug information of the image that holds `address` (read once per image, on first use)
    /// and the address as that image's DWARF names it; nil when no image holds it.
    package static func debugInfo(at address: UnsafeRawPointer) -> (ImageDebugInfo, UInt)? {
      guard let (image, base) = image(containing: address) else { return nil }
      return (image.debugInfo, image.virtualAddress(of: address, base: base))
    }

    /// The start and size of the function (from the symbol tables) that starts exactly at
    /// `address`; nil when no function symbol starts there.
    package static func function(startingAt address: UnsafeRawPointer) -> (
      start: UnsafeRawPointer, size: UInt
    )? {
      guard let (image, base) = image(containing: address) else { return nil }
      let offset = UInt(bitPattern: address) &- UInt(bitPattern: base)
      guard let extent = image.symbols.functions.extent(at: offset), extent.start == offset else {
        return nil
      }
      return (address, extent.size)
    }
  }
#endif
