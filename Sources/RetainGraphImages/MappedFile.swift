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

  /// A file mapped read-only into memory for the rest of the process: the symbol and debug names the
  /// readers keep point into it.
  struct MappedFile {
    /// The file's device and inode: one mapping per file, whatever path names it (the main program
    /// is both its own path and `/proc/self/exe`).
    struct Identity: Hashable {
      var device: UInt64
      var inode: UInt64
    }

    let bytes: UnsafeRawBufferPointer
    let identity: Identity

    /// The identity of the file at `path` and an open descriptor to it (the caller closes it); nil
    /// when it cannot be opened.
    static func openFile(_ path: String) -> (descriptor: Int32, identity: Identity, size: Int)? {
      let descriptor = open(path, O_RDONLY)
      guard descriptor >= 0 else { return nil }
      var status = stat()
      guard fstat(descriptor, &status) == 0 else {
        close(descriptor)
        return nil
      }
      return (
        descriptor, Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)), Int(status.st_size)
      )
    }

    /// Maps `size` bytes of the open file; nil when it is empty or cannot be mapped.
    init?(descriptor: Int32, identity: Identity, size: Int) {
      guard size > 0,
        let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), base != MAP_FAILED
      else { return nil }
      bytes = UnsafeRawBufferPointer(start: base, count: size)
      self.identity = identity
    }

    /// Gives the mapping back (only for a file that turned out not to be an image: nothing points
    /// into it).
    func unmap() {
      if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }
  }
#endif
