internal import SwiftShims

@_silgen_name("swift_reflectionMirror_recursiveCount")
private func _recursiveCount(_ type: any Any.Type) -> Int

@_silgen_name("swift_reflectionMirror_recursiveChildMetadata")
private func _recursiveChildMetadata(
  _ type: any Any.Type,
  index: Int,
  fieldMetadata: UnsafeMutablePointer<_FieldReflectionMetadata>
) -> any Any.Type

@_silgen_name("swift_reflectionMirror_recursiveChildOffset")
private func _recursiveChildOffset(_ type: any Any.Type, index: Int) -> Int

/// One stored property of a class (superclass fields included) or struct, as the runtime lays it out.
package struct StoredField {
  package var name: String
  package var type: any Any.Type
  package var offset: Int
  /// nil for a strong field; otherwise how the non-strong reference is stored. A non-strong field
  /// whose mangled name is not recognised is `.unknown`: it is never read.
  package var storage: Storage
  /// The compiler hides the field's type from reflection (a noncopyable type such as `Mutex`): it
  /// was recovered from the field record, and the value must be read where it is stored.
  package var isHidden = false

  package enum Storage: Equatable {
    case strong
    case reference(ReferenceStorage)
    case unknownNonStrong
    /// A noncopyable type the compiler hides from reflection and that could not be recovered
    /// (named here as the field record's symbol spells it).
    case hidden(String)
  }
}

private let lazyStoragePrefix = "$__lazy_storage_$_"

package enum FieldLayout {
  /// The stored fields of a class (root class's fields first) or struct, with their ownership; nil
  /// for any other kind of type.
  package static func storedFields(of type: any Any.Type) -> [StoredField]? {
    let kind = Metadata.kind(of: type)
    guard kind == .class || kind == .struct else { return nil }
    let count = _recursiveCount(type)
    guard count > 0 else { return [] }

    // Mangled names, in the runtime's recursive order: superclass fields first.
    var mangled: [MangledName] = []
    if kind == .class {
      var chain: [any Any.Type] = []
      var current: (any Any.Type)? = type
      while let cls = current {
        chain.append(cls)
        current = Metadata.superclass(of: cls)
      }
      for cls in chain.reversed() {
        mangled += Metadata.ownFieldMangledNames(of: cls) ?? []
      }
    } else {
      mangled = Metadata.ownFieldMangledNames(of: type) ?? []
    }

    var fields: [StoredField] = []
    fields.reserveCapacity(count)
    for index in 0..<count {
      var metadata = _FieldReflectionMetadata()
      var fieldType = _recursiveChildMetadata(type, index: index, fieldMetadata: &metadata)
      var isHidden = false
      var hiddenName: String?
      // The reflection runtime reports `()` for a noncopyable field (a `Mutex`): ask the record.
      if fieldType == Void.self, mangled.count == count, let hidden = Metadata.hiddenType(of: mangled[index])
      {
        switch hidden {
        case .atomic: break
        case .recovered(let declared):
          fieldType = declared
          isHidden = true
        case .unrecovered(let typeName):
          hiddenName = typeName
        }
      } else if fieldType == Void.self, mangled.count == count, Metadata.isHiddenByAccessor(mangled[index]) {
        // A noncopyable field whose type needs the symbol table to be named (a build without the
        // binary readers): never read, and said so.
        hiddenName = Metadata.unnamedHiddenType
      }
      var name = metadata.name.map { String(cString: $0) } ?? "\(index)"
      // A `lazy var greeting` is stored as `$__lazy_storage_$_greeting`: label it as people wrote it.
      if name.hasPrefix(lazyStoragePrefix) { name.removeFirst(lazyStoragePrefix.count) }
      metadata.freeFunc?(metadata.name)
      let offset = _recursiveChildOffset(type, index: index)
      let storage: StoredField.Storage
      if let hiddenName {
        storage = .hidden(hiddenName)
      } else if metadata.isStrong {
        storage = .strong
      } else if mangled.count == count, let reference = mangled[index].referenceOwnership {
        storage = .reference(reference)
      } else {
        storage = .unknownNonStrong
      }
      fields.append(
        StoredField(name: name, type: fieldType, offset: offset, storage: storage, isHidden: isHidden))
    }
    return fields
  }
}
