// A reader for the textual type manglings the walk meets in symbol names (a noncopyable field's
// `get_type_metadata <mangled type> noncopyable.<n>`), as far as resolving them needs: see
// README.md in this target, "Private types in hidden fields".

/// A type as its mangling spells it: nominal types with their contexts and generic arguments;
/// everything else as the text that spells it without substitutions.
package indirect enum MangledType: Equatable {
  /// A module, as the context of a nominal type (`s` is `Swift`).
  case module(String)
  /// A class (`C`), struct (`V`), enum (`O`) or protocol (`P`) named `name` in `context`;
  /// `discriminator` is the private discriminator of a `private`/`fileprivate` type (`33_…LL`),
  /// `local` the index text of a type declared in a function (`L_`, `L0_`).
  case nominal(kind: UInt8, context: MangledType, name: String, discriminator: String?, local: String?)
  /// A standard type of the standard library or the concurrency library (`Si`, `Sq`, `ScT`).
  case standard(String)
  /// A generic type with its arguments, one list per generic context from the outermost.
  case bound(MangledType, levels: [[MangledType]])
  /// Any other type, as its text without substitutions; `parts` are the types it is made of.
  case composite(prefix: String, parts: [MangledType], separators: [String], suffix: String)

  /// Whether a private, fileprivate or local type appears in it (name lookup cannot find those).
  package var namesUnlistedType: Bool {
    switch self {
    case .module, .standard: return false
    case .nominal(_, let context, _, let discriminator, let local):
      return discriminator != nil || local != nil || context.namesUnlistedType
    case .bound(let nominal, let levels):
      return nominal.namesUnlistedType || levels.contains { $0.contains { $0.namesUnlistedType } }
    case .composite(_, let parts, _, _):
      return parts.contains { $0.namesUnlistedType }
    }
  }

  /// The mangling of the type with no substitutions: every name spelled out, so that the text
  /// stands alone.
  package var text: String {
    switch self {
    case .module(let name):
      switch name {
      case "Swift": return "s"
      case "__C": return "So"
      default: return MangledTypeReader.identifier(name)
      }
    case .nominal(let kind, let context, let name, let discriminator, let local):
      var text = context.text + MangledTypeReader.identifier(name)
      if let discriminator { text += MangledTypeReader.identifier(discriminator) + "LL" }
      if let local { text += local }
      return text + String(UnicodeScalar(kind))
    case .standard(let text):
      return text
    case .bound(.standard("Sq"), let levels) where levels.count == 1 && levels[0].count == 1:
      return levels[0][0].text + "Sg"
    case .bound(let nominal, let levels):
      return nominal.text + "y" + levels.map { $0.map(\.text).joined() }.joined(separator: "_") + "G"
    case .composite(let prefix, let parts, let separators, let suffix):
      var text = prefix
      for (index, part) in parts.enumerated() {
        text += part.text
        if index < separators.count { text += separators[index] }
      }
      return text + suffix
    }
  }
}
