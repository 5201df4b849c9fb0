/// The runtime's own reflection, which `Mirror` uses unless a type supplies a custom mirror: it
/// shows what is stored, whatever `customMirror` says.
package typealias ReflectionNameFree = @convention(c) (UnsafePointer<CChar>?) -> Void

@_silgen_name("swift_reflectionMirror_count")
private func _reflectionCount<T>(_ value: T, type: any Any.Type) -> Int

@_silgen_name("swift_reflectionMirror_subscript")
private func _reflectionChild<T>(
  of value: T, type: any Any.Type, index: Int,
  outName: UnsafeMutablePointer<UnsafePointer<CChar>?>,
  outFreeFunc: UnsafeMutablePointer<ReflectionNameFree?>
) -> Any

package enum RuntimeReflection {
  /// The children the runtime sees in `value`, ignoring any custom mirror: for an enum, the payload
  /// of its case (a tuple when the case has several values), labelled with the case's name; none
  /// for a case without payload. Indirect payloads are unboxed by the runtime.
  package static func children<T>(of value: T) -> [(label: String?, value: Any)] {
    let count = _reflectionCount(value, type: T.self)
    var children: [(label: String?, value: Any)] = []
    for index in 0..<count {
      var name: UnsafePointer<CChar>?
      var free: ReflectionNameFree?
      let child = _reflectionChild(of: value, type: T.self, index: index, outName: &name, outFreeFunc: &free)
      children.append((name.map { String(cString: $0) }, child))
      free?(name)
    }
    return children
  }
}
