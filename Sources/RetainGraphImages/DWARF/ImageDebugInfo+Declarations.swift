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
    ///
    /// Reads every unit: the whole-image answer, which the lookups by address must agree with (tests
    /// compare them). The walk asks ``functionDeclaration(at:linkageNames:)`` instead.
    package func functionDeclarations(where isWanted: (UnsafePointer<CChar>) -> Bool) -> [FunctionDeclaration]
    {
      var found: [FunctionDeclaration] = []
      for facts in allFacts() {
        for (offset, declaration) in facts.declarations {
          guard let name = facts.names[offset], isWanted(name),
            let file = path(ofFile: Int(declaration.file), inUnit: Int(declaration.unit), files: facts.files)
          else { continue }
          found.append(
            FunctionDeclaration(mangledName: String(cString: name), file: file, line: Int(declaration.line)))
        }
      }
      return found.sorted { ($0.mangledName, $0.file, $0.line) < ($1.mangledName, $1.file, $1.line) }
    }

    /// The declaration of the function whose code starts at the virtual address `start`, read from
    /// that function's unit only: the entry named by the first of `linkageNames` that the unit
    /// declares (a partial apply forwarder's closure, say), or else the entry whose `DW_AT_low_pc`
    /// is `start` (or the declaration it refers to), or else a specialisation of one of
    /// `linkageNames` (its name with a `T…` suffix: an optimised build may declare the line only
    /// there). Nil when the unit declares none of them.
    /// - Parameters:
    ///   - start: the function's address, as the symbol table and the DWARF name it.
    ///   - linkageNames: mangled names to look for in the unit, in order.
    /// - Returns: the declaration; nil when no unit holds `start` or its unit declares neither.
    /// - Throws: the ``DWARFError`` that kept the answer from being read (the unit, or the table of
    ///   addresses, cut short or corrupt).
    package func functionDeclaration(at start: UInt, linkageNames: [String] = []) throws(DWARFError)
      -> FunctionDeclaration?
    {
      guard sections != nil, let unit = try unit(ofFunctionAt: start) else { return nil }
      let facts = facts(ofUnit: unit)
      func declaration(_ offset: Int, named name: UnsafePointer<CChar>) -> FunctionDeclaration? {
        guard let declaration = facts.declarations[offset],
          let file = path(ofFile: Int(declaration.file), inUnit: Int(declaration.unit), files: facts.files)
        else { return nil }
        return FunctionDeclaration(
          mangledName: String(cString: name), file: file, line: Int(declaration.line))
      }
      for wanted in linkageNames {
        let found = wanted.withCString { wanted in
          facts.names.first { facts.declarations[$0.key] != nil && strcmp($0.value, wanted) == 0 }
        }
        if let (offset, name) = found, let declared = declaration(offset, named: name) { return declared }
      }
      if var die = facts.functionStarts[start] {
        // The definition, or the declaration it names (a method's is inside its type's entry).
        for _ in 0..<4 {
          if let name = facts.names[die], let declared = declaration(die, named: name) { return declared }
          guard let next = facts.origins[die] else { break }
          die = next
        }
      }
      // An optimised build may declare the line only on a specialisation the function's code was
      // made from (`…fU_Tf4nn_g`, a function signature specialisation of `…fU_`): its linkage name
      // is one of `linkageNames` with a `T…` suffix.
      for wanted in linkageNames {
        let length = wanted.utf8.count
        let found = wanted.withCString { wanted in
          facts.declarations.keys.filter { offset in
            guard let name = facts.names[offset] else { return false }
            return strncmp(name, wanted, length) == 0 && name[length] == CChar(UInt8(ascii: "T"))
          }
        }
        if let offset = found.min(), let name = facts.names[offset],
          let declared = declaration(offset, named: name)
        {
          return declared
        }
      }
      if let error = facts.error { throw error }
      return nil
    }

    /// The types whose linkage name `isWanted` accepts, each with the files its functions are
    /// declared in (in the order the DWARF lists them). Reads every unit (see
    /// ``typeFiles(inUnitsOfFunctionsAt:where:)`` for the lookup the walk uses).
    package func typeFiles(where isWanted: (UnsafePointer<CChar>) -> Bool) -> [TypeFiles] {
      typeFiles(in: allFacts(), where: isWanted)
    }

    /// ``typeFiles(where:)`` read from the units that hold the functions starting at `starts` only
    /// (a type's methods: its entry, with their declarations, is in their units).
    package func typeFiles(
      inUnitsOfFunctionsAt starts: [UInt], where isWanted: (UnsafePointer<CChar>) -> Bool
    )
      -> [TypeFiles]
    {
      guard sections != nil else { return [] }
      var seen: Set<Int> = []
      var units: [UnitFacts] = []
      for start in starts {
        guard let unit = try? unit(ofFunctionAt: start), seen.insert(unit).inserted else { continue }
        units.append(facts(ofUnit: unit))
      }
      return typeFiles(in: units, where: isWanted)
    }

    private func typeFiles(in units: [UnitFacts], where isWanted: (UnsafePointer<CChar>) -> Bool)
      -> [TypeFiles]
    {
      var found: [TypeFiles] = []
      for facts in units {
        for (_, type) in facts.types where isWanted(type.name) {
          let files = type.files.files.compactMap {
            path(ofFile: Int($0), inUnit: type.files.unit, files: facts.files)
          }
          guard !files.isEmpty else { continue }
          found.append(TypeFiles(mangledName: String(cString: type.name), files: files))
        }
      }
      return found.sorted { $0.mangledName < $1.mangledName }
    }

    /// The path of file `index` of the file table of compile unit `unit` (whose line program and
    /// directory are `files`); nil when the table has no such file or cannot be read.
    private func path(ofFile index: Int, inUnit unit: Int, files: DWARFUnitFiles?) -> String? {
      guard let sections, let files, let program = files.lineProgram else { return nil }
      let paths =
        unitPaths.withLock { $0[unit] }
        ?? {
          let directory = files.directory.map { String(cString: $0) }
          let read = DWARFLineFiles.paths(at: program, in: sections, compileDirectory: directory)
          unitPaths.withLock { $0[unit] = read }
          return read
        }()
      guard paths.indices.contains(index), !paths[index].isEmpty else { return nil }
      return paths[index]
    }
  }
#endif
