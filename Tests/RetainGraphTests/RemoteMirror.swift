#if os(Linux) && arch(x86_64)
  import Glibc
  import Synchronization

  /// The toolchain's `libswiftRemoteMirror.so`, loaded with `dlopen` and pointed at this process.
  ///
  /// No headers ship with the library, so the C API of `SwiftRemoteMirror.h`,
  /// `SwiftRemoteMirrorTypes.h` and `MemoryReaderInterface.h` is declared here by hand. The two
  /// functions that return `swift_typeinfo_t` (20 bytes) and `swift_childinfo_t` (24 bytes) return
  /// them in memory: on x86_64 System V that is a hidden first argument holding the result's address,
  /// which is how they are declared below (and why this file is x86_64 Linux only).
  final class RemoteMirror: @unchecked Sendable {
    /// Why the library could not be used.
    struct LoadError: Error, CustomStringConvertible {
      var description: String
    }

    /// `swift_layout_kind_t`.
    enum LayoutKind: UInt32, CustomStringConvertible {
      case unknown, builtin, rawPointer, tuple, `struct`, noPayloadEnum, singlePayloadEnum
      case multiPayloadEnum, thickFunction, opaqueExistential, classExistential, errorExistential
      case existentialMetatype, strongReference, unownedReference, weakReference
      case unmanagedReference, classInstance, closureContext

      var description: String { Self.names[Int(rawValue)] }
      private static let names = [
        "unknown", "builtin", "rawPointer", "tuple", "struct", "noPayloadEnum", "singlePayloadEnum",
        "multiPayloadEnum", "thickFunction", "opaqueExistential", "classExistential", "errorExistential",
        "existentialMetatype", "strongReference", "unownedReference", "weakReference",
        "unmanagedReference", "classInstance", "closureContext",
      ]
    }

    /// `swift_typeinfo_t`.
    struct TypeInfo {
      var kind: LayoutKind?
      var size: Int
      var alignment: Int
      var stride: Int
      var fieldCount: Int
    }

    /// `swift_childinfo_t`, with the type's name demangled.
    struct Child {
      var name: String
      var offset: Int
      var kind: LayoutKind?
      var typeRef: UInt64
      var typeName: String
      /// The size of the child's type, from `swift_reflection_infoForTypeRef`.
      var size: Int
    }

    /// The library next to the running `libswiftCore.so` (the toolchain's, e.g.
    /// `/opt/swift/usr/lib/swift/linux/libswiftRemoteMirror.so`), with a reflection context that
    /// knows every loaded image with Swift reflection sections. It lives as long as the process.
    static let shared: Result<RemoteMirror, LoadError> = {
      do throws(LoadError) {
        return .success(try RemoteMirror())
      } catch {
        return .failure(error)
      }
    }()

    let libraryPath: String
    /// The images added with `swift_reflection_addImage`, by path.
    let images: [String]

    fileprivate typealias QueryDataLayout =
      @convention(c) (UnsafeMutableRawPointer?, UInt32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?)
      -> Int32
    fileprivate typealias FreeBytes =
      @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?, UnsafeMutableRawPointer?) -> Void
    fileprivate typealias ReadBytes =
      @convention(c) (
        UnsafeMutableRawPointer?, UInt64, UInt64, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
      ) -> UnsafeRawPointer?
    fileprivate typealias GetStringLength = @convention(c) (UnsafeMutableRawPointer?, UInt64) -> UInt64
    fileprivate typealias GetSymbolAddress =
      @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UInt64) -> UInt64
    private typealias CreateContext =
      @convention(c) (
        UnsafeMutableRawPointer?, QueryDataLayout, FreeBytes?, ReadBytes, GetStringLength, GetSymbolAddress
      ) -> OpaquePointer?
    private typealias AddImage = @convention(c) (OpaquePointer, UInt64) -> Int32
    /// `swift_typeinfo_t swift_reflection_infoForInstance(ctx, uintptr_t)`, result in memory.
    private typealias InfoForInstance = @convention(c) (UnsafeMutableRawPointer, OpaquePointer, UInt) -> Void
    /// `swift_childinfo_t swift_reflection_childOfInstance(ctx, uintptr_t, unsigned)`, result in memory.
    private typealias ChildOfInstance =
      @convention(c) (UnsafeMutableRawPointer, OpaquePointer, UInt, UInt32) -> Void
    /// `swift_typeinfo_t swift_reflection_infoForTypeRef(ctx, swift_typeref_t)`, result in memory.
    private typealias InfoForTypeRef = @convention(c) (UnsafeMutableRawPointer, OpaquePointer, UInt64) -> Void
    private typealias CopyDemangledName =
      @convention(c) (OpaquePointer, UInt64) -> UnsafeMutablePointer<CChar>?

    private let context: OpaquePointer
    private let reader: Reader
    private let lock = Mutex(())
    private let infoForInstance: InfoForInstance
    private let childOfInstance: ChildOfInstance
    private let infoForTypeRef: InfoForTypeRef
    private let copyDemangledName: CopyDemangledName
    /// `swift_async_task_info_t swift_reflection_asyncTaskInfo(ctx, swift_reflection_ptr_t)`,
    /// result in memory (it is larger than two registers).
    private typealias AsyncTaskInfo = @convention(c) (UnsafeMutableRawPointer, OpaquePointer, UInt64) -> Void
    private let asyncTaskInfo: AsyncTaskInfo

    private init() throws(LoadError) {
      let loaded = Image.loaded()
      guard let core = loaded.first(where: { $0.path.hasSuffix("/libswiftCore.so") }) else {
        throw LoadError(description: "libswiftCore.so is not among the loaded images")
      }
      let libraryPath = String(core.path.dropLast("libswiftCore.so".count)) + "libswiftRemoteMirror.so"
      self.libraryPath = libraryPath
      guard let library = dlopen(libraryPath, RTLD_NOW | RTLD_LOCAL) else {
        let reason = dlerror().map { String(cString: $0) } ?? "unknown error"
        throw LoadError(description: "cannot load \(libraryPath): \(reason)")
      }
      func symbol<F>(_ name: String, as _: F.Type) throws(LoadError) -> F {
        guard let address = dlsym(library, name) else {
          throw LoadError(description: "\(libraryPath) has no \(name)")
        }
        return unsafeBitCast(address, to: F.self)
      }
      let create = try symbol(
        "swift_reflection_createReflectionContextWithDataLayout", as: CreateContext.self)
      let addImage = try symbol("swift_reflection_addImage", as: AddImage.self)
      infoForInstance = try symbol("swift_reflection_infoForInstance", as: InfoForInstance.self)
      childOfInstance = try symbol("swift_reflection_childOfInstance", as: ChildOfInstance.self)
      infoForTypeRef = try symbol("swift_reflection_infoForTypeRef", as: InfoForTypeRef.self)
      copyDemangledName = try symbol(
        "swift_reflection_copyDemangledNameForTypeRef", as: CopyDemangledName.self)
      asyncTaskInfo = try symbol("swift_reflection_asyncTaskInfo", as: AsyncTaskInfo.self)

      let reader = Reader()
      self.reader = reader
      guard
        let context = create(
          Unmanaged.passUnretained(reader).toOpaque(), Reader.queryDataLayout, nil, Reader.readBytes,
          Reader.stringLength, Reader.symbolAddress)
      else { throw LoadError(description: "swift_reflection_createReflectionContextWithDataLayout failed") }
      self.context = context

      var added: [String] = []
      // `self` is not complete yet: everything below works on locals.
      for image in loaded {
        guard let overlays = try image.sectionHeaderOverlays() else { continue }
        reader.overlays = overlays
        defer {
          reader.overlays = []
          for overlay in overlays { overlay.bytes.deallocate() }
        }
        guard addImage(context, image.start) != 0 else {
          throw LoadError(description: "swift_reflection_addImage refused \(image.path)")
        }
        added.append(image.path)
      }
      images = added
    }

    /// The layout of a class instance or closure context, as `swift_reflection_infoForInstance` sees it.
    func info(ofInstance object: UnsafeRawPointer) -> TypeInfo {
      lock.withLock { _ in
        Self.typeInfo { infoForInstance($0, context, UInt(bitPattern: object)) }
      }
    }

    /// Field `index` of a class instance or closure context (`swift_reflection_childOfInstance`).
    func child(ofInstance object: UnsafeRawPointer, index: Int) -> Child {
      lock.withLock { _ in
        let raw = UnsafeMutableRawPointer.allocate(byteCount: 24, alignment: 8)
        defer { raw.deallocate() }
        childOfInstance(raw, context, UInt(bitPattern: object), UInt32(index))
        let name = raw.load(as: UnsafePointer<CChar>?.self).map { String(cString: $0) } ?? ""
        let typeRef = raw.load(fromByteOffset: 16, as: UInt64.self)
        var typeName = "<no typeref>"
        if typeRef != 0, let demangled = copyDemangledName(context, typeRef) {
          typeName = String(cString: demangled)
          free(demangled)
        }
        let size = typeRef == 0 ? 0 : Self.typeInfo { infoForTypeRef($0, context, typeRef) }.size
        return Child(
          name: name, offset: Int(raw.load(fromByteOffset: 8, as: UInt32.self)),
          kind: LayoutKind(rawValue: raw.load(fromByteOffset: 12, as: UInt32.self)), typeRef: typeRef,
          typeName: typeName, size: size)
      }
    }

    /// What `swift_reflection_asyncTaskInfo` says of a task: the raw bytes of its
    /// `swift_async_task_info_t` (copied out before the next call), or its error. The struct's
    /// layout differs between toolchains, so callers read it with `AsyncTaskInfoLayout`.
    func taskInfo(of task: UnsafeRawPointer) -> Result<[UInt8], LoadError> {
      lock.withLock { _ in
        let raw = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 8)
        defer { raw.deallocate() }
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: 256)
        asyncTaskInfo(raw, context, UInt64(UInt(bitPattern: task)))
        if let error = raw.load(as: UnsafePointer<CChar>?.self) {
          return .failure(LoadError(description: String(cString: error)))
        }
        return .success(Array(UnsafeRawBufferPointer(start: raw, count: 256)))
      }
    }

    private static func typeInfo(_ fill: (UnsafeMutableRawPointer) -> Void) -> TypeInfo {
      let raw = UnsafeMutableRawPointer.allocate(byteCount: 24, alignment: 8)
      defer { raw.deallocate() }
      raw.initializeMemory(as: UInt8.self, repeating: 0, count: 24)
      fill(raw)
      func field(_ index: Int) -> Int { Int(raw.load(fromByteOffset: 4 * index, as: UInt32.self)) }
      return TypeInfo(
        kind: LayoutKind(rawValue: raw.load(as: UInt32.self)), size: field(1), alignment: field(2),
        stride: field(3), fieldCount: field(4))
    }
  }

  /// The memory reader handed to the library: this process reads itself, so an address is its own
  /// buffer. The one exception is `addImage` on ELF, which reads the section header table and the
  /// section name table at `image start + file offset`, where nothing of the file is mapped: while an
  /// image is added, those ranges are served from copies read from the file (`overlays`).
  private final class Reader: @unchecked Sendable {
    /// A copy of some of an image's file, placed at `start`.
    struct Overlay {
      var start: UInt64
      var bytes: UnsafeRawBufferPointer

      init(start: UInt64, copying bytes: [UInt8]) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 8)
        buffer.copyBytes(from: bytes)
        self.start = start
        self.bytes = UnsafeRawBufferPointer(buffer)
      }

      func contains(_ address: UInt64, count: UInt64) -> Bool {
        address >= start && address + count <= start + UInt64(bytes.count)
      }
    }

    var overlays: [Overlay] = []

    static func reader(_ context: UnsafeMutableRawPointer?) -> Reader? {
      context.map { Unmanaged<Reader>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Answers as the library's own in-process reader does for Linux on a 64-bit target.
    static let queryDataLayout: RemoteMirror.QueryDataLayout = { _, query, _, output in
      guard let output else { return 0 }
      switch query {
      case 0, 1:  // DLQ_GetPointerSize, DLQ_GetSizeSize
        output.storeBytes(of: 8, as: UInt8.self)
      case 2:  // DLQ_GetPtrAuthMask: every bit is an address bit
        output.storeBytes(of: ~0, as: UInt64.self)
      case 3:  // DLQ_GetObjCReservedLowBits
        output.storeBytes(of: 0, as: UInt8.self)
      case 4:  // DLQ_GetLeastValidPointerValue: the first 4 KiB off Darwin
        output.storeBytes(of: 0x1000, as: UInt64.self)
      case 5:  // DLQ_GetObjCInteropIsEnabled
        output.storeBytes(of: false, as: Bool.self)
      default:
        return 0
      }
      return 1
    }

    static let readBytes: RemoteMirror.ReadBytes = { context, address, size, freeContext in
      freeContext?.pointee = nil
      guard address != 0 else { return nil }
      if let reader = reader(context) {
        for overlay in reader.overlays where overlay.contains(address, count: size) {
          return overlay.bytes.baseAddress.map { $0 + Int(address - overlay.start) }
        }
      }
      return UnsafeRawPointer(bitPattern: UInt(address))
    }

    static let stringLength: RemoteMirror.GetStringLength = { _, address in
      guard let string = UnsafePointer<CChar>(bitPattern: UInt(address)) else { return 0 }
      return UInt64(strlen(string))
    }

    static let symbolAddress: RemoteMirror.GetSymbolAddress = {
      _, name, length in
      guard let name else { return 0 }
      let symbol = String(
        decoding: UnsafeRawBufferPointer(start: name, count: Int(length)), as: UTF8.self)
      return dlsym(nil, symbol).map { UInt64(UInt(bitPattern: $0)) } ?? 0
    }
  }

  /// A loaded ELF image, from `dl_iterate_phdr`.
  private struct Image {
    /// Where the ELF header is mapped; also the load bias `sh_addr` is relative to.
    var start: UInt64
    var path: String

    private typealias Callback =
      @convention(c) (UnsafeRawPointer?, Int, UnsafeMutableRawPointer?) -> Int32
    private typealias IteratePhdr = @convention(c) (Callback, UnsafeMutableRawPointer?) -> Int32

    /// The images whose ELF header is mapped at their load bias (shared objects and PIE executables).
    static func loaded() -> [Image] {
      guard let symbol = dlsym(nil, "dl_iterate_phdr") else { return [] }
      let iterate = unsafeBitCast(symbol, to: IteratePhdr.self)
      var images: [Image] = []
      withUnsafeMutablePointer(to: &images) { list in
        _ = iterate(
          { info, _, list in
            // struct dl_phdr_info { Elf64_Addr dlpi_addr; const char *dlpi_name; const Elf64_Phdr
            // *dlpi_phdr; Elf64_Half dlpi_phnum; … }
            guard let info, let list = list?.assumingMemoryBound(to: [Image].self) else { return 0 }
            let bias = info.load(as: UInt64.self)
            let name = info.load(fromByteOffset: 8, as: UnsafePointer<CChar>?.self).map {
              String(cString: $0)
            }
            guard let headers = info.load(fromByteOffset: 16, as: UnsafeRawPointer?.self) else { return 0 }
            let count = Int(info.load(fromByteOffset: 24, as: UInt16.self))
            // Elf64_Phdr: p_type u32 at 0, p_offset at 8, p_vaddr at 16; 56 bytes each.
            let mapsHeader = (0..<count).contains { index in
              let header = headers + 56 * index
              return header.load(as: UInt32.self) == 1 && header.load(fromByteOffset: 8, as: UInt64.self) == 0
                && header.load(fromByteOffset: 16, as: UInt64.self) == 0
            }
            guard mapsHeader else { return 0 }
            let path = (name?.isEmpty ?? true) ? "/proc/self/exe" : name ?? ""
            list.pointee.append(Image(start: bias, path: path))
            return 0
          }, UnsafeMutableRawPointer(list))
      }
      return images
    }

    /// The section header table and section name table, read from the file and placed where
    /// `swift_reflection_addImage` will look for them; nil when the image has no Swift reflection
    /// sections or its file cannot be read (the vDSO).
    func sectionHeaderOverlays() throws(RemoteMirror.LoadError) -> [Reader.Overlay]? {
      let file = open(path, O_RDONLY)
      guard file >= 0 else { return nil }
      defer { close(file) }
      func read(_ offset: UInt64, _ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { pread(file, $0.baseAddress, count, off_t(offset)) }
        return got == count ? bytes : nil
      }
      func load<T: FixedWidthInteger>(_ bytes: [UInt8], _ offset: Int, as _: T.Type) -> T {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
      }
      guard let header = read(0, 64), header.starts(with: [0x7F, 0x45, 0x4C, 0x46]), header[4] == 2 else {
        return nil
      }
      let tableOffset = load(header, 0x28, as: UInt64.self)
      let entrySize = Int(load(header, 0x3A, as: UInt16.self))
      let count = Int(load(header, 0x3C, as: UInt16.self))
      let namesIndex = Int(load(header, 0x3E, as: UInt16.self))
      guard entrySize >= 64, count > 0, namesIndex < count, let table = read(tableOffset, entrySize * count)
      else { return nil }
      // Elf64_Shdr: sh_name u32 at 0, sh_addr at 0x10, sh_offset at 0x18, sh_size at 0x20.
      let namesOffset = load(table, entrySize * namesIndex + 0x18, as: UInt64.self)
      let namesSize = Int(load(table, entrySize * namesIndex + 0x20, as: UInt64.self))
      guard let names = read(namesOffset, namesSize) else { return nil }
      let shadowed = [
        (start + tableOffset, start + tableOffset + UInt64(table.count)),
        (start + namesOffset, start + namesOffset + UInt64(names.count)),
      ]
      var hasSwiftSections = false
      for index in 0..<count {
        let entry = entrySize * index
        let nameOffset = Int(load(table, entry, as: UInt32.self))
        guard nameOffset < names.count else { continue }
        let name = String(decoding: names[nameOffset...].prefix { $0 != 0 }, as: UTF8.self)
        guard name.hasPrefix("swift5_") else { continue }
        hasSwiftSections = true
        // The overlays shadow memory while the image is added: they must not cover a section the
        // library then reads from memory.
        let sectionStart = start + load(table, entry + 0x10, as: UInt64.self)
        let sectionEnd = sectionStart + load(table, entry + 0x20, as: UInt64.self)
        for (shadowStart, shadowEnd) in shadowed where sectionStart < shadowEnd && shadowStart < sectionEnd {
          throw RemoteMirror.LoadError(description: "\(path): \(name) overlaps the section header table")
        }
      }
      guard hasSwiftSections else { return nil }
      return [
        Reader.Overlay(start: start + tableOffset, copying: table),
        Reader.Overlay(start: start + namesOffset, copying: names),
      ]
    }
  }
#endif
