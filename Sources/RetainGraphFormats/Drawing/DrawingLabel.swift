/// The text of a drawing's labels, the same in every format: shortened (``abbreviated(_:)``) and
/// wrapped over a few lines (``wrapped(_:)``, DrawingLabel+Wrapping.swift). A format only escapes
/// it (DOT: `DOTText.quoted`).
package enum DrawingLabel {
  /// The longest label drawn, in characters; longer ones keep their start and end around an ellipsis.
  package static let maximumLabelLength = 80

  /// `text` shortened to at most ``maximumLabelLength`` characters, keeping its start and its end.
  package static func abbreviated(_ text: String) -> String {
    guard text.count > maximumLabelLength else { return text }
    let tail = maximumLabelLength / 3
    let head = maximumLabelLength - tail - 1
    return text.prefix(head) + "…" + text.suffix(tail)
  }
}
