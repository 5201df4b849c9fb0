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

  /// One loaded image's file, mapped and parsed once: its symbols at once, its debug information on
  /// first use.
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

    /// The image's DWARF facts (read on first use; empty without debug information).
    package var debugInfo: ImageDebugInfo {
      lazyDebugInfo.withLock { known in
        if let known { return known }
        let made = file.map { ImageDebugInfo($0) } ?? ImageDebugInfo()
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
    package static func image(atPath path: String) -> LoadedImage {
      images.withLock { images in
        if let known = images.byPath[path] { return known }
        let loaded: LoadedImage
        if let (descriptor, identity, size) = MappedFile.openFile(path) {
          defer { close(descriptor) }
          if let known = images.byFile[identity] {
            loaded = known
          } else {
            loaded = LoadedImage(
              path: path, file: map(descriptor: descriptor, identity: identity, size: size))
            images.byFile[identity] = loaded
          }
        } else {
          loaded = LoadedImage(path: path, file: nil)
        }
        images.byPath[path] = loaded
        return loaded
      }
    }

    /// The image file mapped and parsed; nil when it is not an ELF64 image (then unmapped).
    private static func map(descriptor: Int32, identity: MappedFile.Identity, size: Int) -> ELFFile? {
      guard let mapped = MappedFile(descriptor: descriptor, identity: identity, size: size) else {
        return nil
      }
      do {
        return try ELFFile(bytes: mapped.bytes)
      } catch {
        mapped.unmap()
        return nil
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
