// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  internal import CRetainGraphELF

  /// What the dynamic loader says of the loaded images: which one contains an address (`dladdr`),
  /// and their writable segments (`dl_iterate_phdr`), through the C shim that has glibc's
  /// declarations of both.
  package enum Loader {
    /// What the loader says of one address.
    package struct AddressInfo {
      /// The path of the image that contains it.
      package var path: UnsafePointer<CChar>?
      /// The address the image is loaded at (its first loaded byte, the ELF header's).
      package var base: UnsafeRawPointer?
      /// The nearest dynamic symbol at or below the address, and its address.
      package var symbolName: UnsafePointer<CChar>?
      package var symbolAddress: UnsafeRawPointer?
    }

    /// One writable `PT_LOAD` segment of a loaded image, where `static let` and global `var`
    /// storage lives.
    package struct Segment: Sendable {
      package var start: UInt
      package var end: UInt
      /// The image's load bias (`dlpi_addr`) and file path (`/proc/self/exe` for the main program).
      package var bias: UInt
      package var path: String
    }

    /// What `dladdr` says of `address`, nil when no loaded image contains it.
    package static func lookUp(_ address: UnsafeRawPointer) -> AddressInfo? {
      var found = rg_address_info()
      guard rg_address_info_of(address, &found) != 0 else { return nil }
      return AddressInfo(
        path: found.file_name, base: found.file_base, symbolName: found.symbol_name,
        symbolAddress: found.symbol_address)
    }

    /// A number that changes whenever an image is loaded or unloaded (`dlopen`, `dlclose`): a list
    /// of the images taken at one value holds while it stays. 0 where the loader does not count.
    package static func generation() -> UInt64 { UInt64(rg_loaded_image_generation()) }

    /// Every writable `PT_LOAD` segment of every loaded image (empty where the loader cannot list
    /// its images).
    package static func writableSegments() -> [Segment] {
      final class Box { var segments: [Segment] = [] }
      let box = Box()
      _ = withExtendedLifetime(box) {
        rg_each_loaded_image(
          { bias, name, headers, count, context in
            guard let headers, let context else { return 0 }
            let box = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue()
            var path = name.map { String(cString: $0) } ?? ""
            if path.isEmpty { path = "/proc/self/exe" }
            let programs = headers.assumingMemoryBound(to: Elf64_Phdr.self)
            for index in 0..<Int(count) {
              let program = programs[index]
              guard program.p_type == UInt32(PT_LOAD), program.p_flags & UInt32(PF_W) != 0 else { continue }
              let start = bias &+ UInt(program.p_vaddr)
              box.segments.append(
                Segment(start: start, end: start &+ UInt(program.p_memsz), bias: bias, path: path))
            }
            return 0
          }, Unmanaged.passUnretained(box).toOpaque())
      }
      return box.segments
    }
  }
#endif
