import Testing

@testable import RetainGraph

/// What a label given with its kind (a version 2 snapshot, a hand-made edge) becomes: only an
/// ``Edge/Kind/element`` reference's label is read, as the exact inverse of the walk's writing of
/// an element (`items[3]`, `items[3].owner`); any other kind's label, brackets and all, is text.
@Suite struct ReferencePathLabelTests {
  @Test func anElementOfThePropertyIsThePropertyAndANumber() {
    for (label, number, tail) in [
      ("items[3]", Int32(3), ""), ("items[0].owner", 0, ".owner"), ("items[70000]", 70000, ""),
    ] {
      let reference = ReferencePath(label: label, kind: .element, property: "items")
      #expect(reference.path == "items" && reference.numbering == .element, "\(label)")
      #expect(reference.number == number && reference.tail == tail, "\(label)")
      #expect(reference.text() == label)
    }
  }

  @Test(arguments: [
    ("items[3]", Edge.Kind.property),  // a custom child's label, not an element
    ("items[3] (closure)", .closure),
    ("items[3]", .enumPayload),
  ])
  func anotherKindsLabelIsText(label: String, kind: Edge.Kind) {
    let reference = ReferencePath(label: label, kind: kind, property: "items")
    #expect(reference.numbering == .none && reference.number < 0)
    #expect(reference.text() == label)
  }

  /// Not the property's own element, or not a number the walk writes: kept whole.
  @Test(arguments: [
    "state.items[3]", "items[03]", "items[-1]", "items[]", "items[\"done\"]", "items[99999999999]",
    "itemsX[3]",
  ])
  func otherElementLabelsAreKeptWhole(label: String) {
    let reference = ReferencePath(label: label, kind: .element, property: "items")
    #expect(reference.path == label && reference.numbering == .none, "\(label)")
    #expect(reference.text() == label)
  }
}
