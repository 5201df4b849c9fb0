// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  internal import RetainGraphSupport

  #if canImport(Glibc)
    internal import Glibc
  #elseif canImport(Musl)
    internal import Musl
  #elseif canImport(Darwin)
    internal import Darwin
  #endif

  /// One loaded image's file, mapped and parsed once: its symbols at once, its debug information unit
  /// by unit, on first use.
  package final class LoadedImage: @unchecked Sendable {
    /// The path it was first asked for by.
    package let path: String
    package let symbols: ImageSymbols
    /// The parsed file; nil when it could not be read as an ELF64 image.
    private let file: ELFFile?
    private let lazyDebugInfo = ForkSafeMutex<ImageDebugInfo?>(nil)

    init(path: String, file: ELFFile?) {
      self.path = path
      self.file = file
      symbols = file.map(ImageSymbols.init) ?? ImageSymbols()
    }

    /// The image's DWARF facts (empty without debug information): made on first use, and read unit
    /// by unit as questions need them (`ImageDebugInfo`).
    ///
    /// Made outside the lock (two threads may both make it; the first kept wins): the lock is held
    /// across every fork.
    package var debugInfo: ImageDebugInfo {
      if let known = lazyDebugInfo.withLock({ $0 }) { return known }
      let made = file.map { ImageDebugInfo($0) } ?? ImageDebugInfo()
      return lazyDebugInfo.withLock { known in
        if let known { return known }
        known = made
        return made
      }
    }

    /// The virtual address (as the symbol tables and the DWARF name it) of `address` in this image
    /// loaded at `base`.
    package func virtualAddress(of address: UnsafeRawPointer, base: UnsafeRawPointer) -> UInt {
      UInt(bitPattern: address) &- UInt(bitPattern: base) &+ symbols.loadBase
    }
  }

  /// Every image the readers have looked at, each mapped and parsed once for the process (by file:
  /// two paths of one file share it). A forked child uses the parent's mappings.
  package enum ImageCatalogue {
    private struct Images {
      var byPath: [String: LoadedImage] = [:]
      var byFile: [MappedFile.Identity: LoadedImage] = [:]
    }

    private static let images = ForkSafeMutex(Images())

    /// The image at `path` (read on first use; without symbols when it cannot be read).
    ///
    /// The file is mapped and its symbols read outside the catalogue's lock: the lock is held across
    /// every fork, and reading a large image's symbols under it (seconds on a loaded machine) made
    /// each fork meanwhile wait, past a forked walk's timeout once. Two threads may both read one
    /// file; the first kept wins, and the other's mapping is unmapped before anything can use it.
    package static func image(atPath path: String) -> LoadedImage {
      if let known = images.withLock({ $0.byPath[path] }) { return known }
      guard let (descriptor, identity, size) = MappedFile.openFile(path) else {
        return keep(LoadedImage(path: path, file: nil), at: path, identity: nil).image
      }
      defer { close(descriptor) }
      if let known = images.withLock({ $0.byFile[identity] }) {
        return keep(known, at: path, identity: identity).image
      }
      let mapped = MappedFile(descriptor: descriptor, identity: identity, size: size)
      let file = mapped.flatMap { try? ELFFile(bytes: $0.bytes) }
      if file == nil { mapped?.unmap() }
      let (kept, isNew) = keep(LoadedImage(path: path, file: file), at: path, identity: identity)
      if !isNew, file != nil { mapped?.unmap() }
      return kept
    }

    /// Keeps `image` for `path` (and its file), unless another thread kept one first: then that one.
    private static func keep(
      _ image: LoadedImage, at path: String, identity: MappedFile.Identity?
    ) -> (image: LoadedImage, isNew: Bool) {
      images.withLock { images in
        if let known = identity.flatMap({ images.byFile[$0] }) ?? images.byPath[path] {
          images.byPath[path] = known
          return (known, known === image)
        }
        if let identity { images.byFile[identity] = image }
        images.byPath[path] = image
        return (image, true)
      }
    }

    /// The image the loader says contains `address`, with its base; nil when none does.
    package static func image(containing address: UnsafeRawPointer) -> (
      image: LoadedImage, base: UnsafeRawPointer
    )? {
      Loader.lookUp(address).flatMap(image(of:))
    }

    /// The image of what the loader said of an address, with its base.
    package static func image(of info: Loader.AddressInfo) -> (image: LoadedImage, base: UnsafeRawPointer)? {
      guard let path = info.path, let base = info.base else { return nil }
      return (image(atPath: String(cString: path)), base)
    }
  }
#endif
