// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  internal import RetainGraphSupport

  /// Where the DWARF says functions and types are declared: a function's `DW_AT_decl_file` and
  /// `DW_AT_decl_line`; for a type, which has neither in Swift's DWARF (nor have its stored
  /// properties), the files its functions (an initialiser, the deinitialiser, methods, closures
  /// written in them) are declared in.
  extension ImageDebugInfo {
    /// A function's declaration: its linkage (mangled) name, its file's absolute path and its line.
    package struct FunctionDeclaration: Sendable, Hashable {
      package var mangledName: String
      package var file: String
      package var line: Int

      package init(mangledName: String, file: String, line: Int) {
        self.mangledName = mangledName
        self.file = file
        self.line = line
      }
    }

    /// A type's linkage name (`$s3App10InteractorCD`) and the files its functions are declared in.
    package struct TypeFiles: Sendable, Hashable {
      package var mangledName: String
      package var files: [String]

      package init(mangledName: String, files: [String]) {
        self.mangledName = mangledName
        self.files = files
      }
    }

    /// The declarations of the functions whose linkage name `isWanted` accepts (it is given the
    /// NUL-terminated name, so that most are rejected without making a `String`).
    package func functionDeclarations(where isWanted: (UnsafePointer<CChar>) -> Bool) -> [FunctionDeclaration]
    {
      var found: [FunctionDeclaration] = []
      for (offset, declaration) in declarations {
        guard let name = names[offset], isWanted(name),
          let file = path(ofFile: Int(declaration.file), inUnit: Int(declaration.unit))
        else { continue }
        found.append(
          FunctionDeclaration(mangledName: String(cString: name), file: file, line: Int(declaration.line)))
      }
      return found.sorted { ($0.mangledName, $0.file, $0.line) < ($1.mangledName, $1.file, $1.line) }
    }

    /// The types whose linkage name `isWanted` accepts, each with the files its functions are
    /// declared in (in the order the DWARF lists them).
    package func typeFiles(where isWanted: (UnsafePointer<CChar>) -> Bool) -> [TypeFiles] {
      var found: [TypeFiles] = []
      for (_, type) in types where isWanted(type.name) {
        let files = type.files.files.compactMap { path(ofFile: Int($0), inUnit: type.files.unit) }
        guard !files.isEmpty else { continue }
        found.append(TypeFiles(mangledName: String(cString: type.name), files: files))
      }
      return found.sorted { $0.mangledName < $1.mangledName }
    }

    /// The path of file `index` of the file table of compile unit `unit`; nil when the table has no
    /// such file or cannot be read.
    private func path(ofFile index: Int, inUnit unit: Int) -> String? {
      guard let sections, units.indices.contains(unit), let program = units[unit].lineProgram else {
        return nil
      }
      let paths =
        unitPaths.withLock { $0[unit] }
        ?? {
          let directory = units[unit].directory.map { String(cString: $0) }
          let read = DWARFLineFiles.paths(at: program, in: sections, compileDirectory: directory)
          unitPaths.withLock { $0[unit] = read }
          return read
        }()
      guard paths.indices.contains(index), !paths[index].isEmpty else { return nil }
      return paths[index]
    }
  }
#endif
