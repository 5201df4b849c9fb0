/// How a reference holds the object it points to.
///
/// Only ``strong`` references keep an object alive, so only they can form a retain cycle. The others
/// are recorded and drawn so a person sees the whole picture.
public enum Ownership: String, Sendable, Hashable, CaseIterable, Codable {
  /// A normal reference: it retains its target.
  case strong
  /// A `weak` reference (or a `[weak x]` capture): it becomes nil when the target is released.
  case weak
  /// An `unowned` reference (or an `[unowned x]` capture): it traps if read after the target is gone.
  case unowned
  /// An `unowned(unsafe)` reference: unchecked, undefined behaviour if read after the target is gone.
  case unownedUnsafe = "unowned(unsafe)"
}
