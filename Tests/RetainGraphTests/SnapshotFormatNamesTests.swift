import RetainGraphSnapshots
import Testing

@testable import RetainGraph

/// The snapshot reader (RetainGraphSnapshots) knows no public type: it reads node kinds,
/// ownerships and edge kinds as codes in its own name lists, and its errors' reasons by name. These
/// must stay the public types' own, in their order, or a snapshot would read as another graph.
@Suite struct SnapshotFormatNamesTests {
  @Test func theNameListsAreThePublicTypesRawValues() {
    #expect(SnapshotFormat.nodeKinds == Node.Kind.allCases.map(\.rawValue))
    #expect(SnapshotFormat.ownerships == Ownership.allCases.map(\.rawValue))
    let kinds: [Edge.Kind] = [
      .property, .enumPayload, .element, .closure, .singleCapture, .methodReference(method: "m"),
      .capture(index: 0), .global, .suspendedFrame, .actorIsolation(index: 0),
    ]
    #expect(SnapshotFormat.edgeKinds == kinds.map(\.jsonName))
    // Each ownership's code in the graph's compact edges is its place in the list.
    #expect(Ownership.allCases.map { Int($0.code) } == Array(SnapshotFormat.ownerships.indices))
  }

  @Test func everyReadingErrorKeepsItsReasonPlaceAndMessage() {
    #expect(
      SnapshotReadingError.Reason.allCases.map(\.rawValue)
        == GraphDecodingError.Reason.allCases.map(\.rawValue))
    for reason in SnapshotReadingError.Reason.allCases {
      let places: [(SnapshotReadingError.Location?, GraphDecodingError.Location?)] = [
        (.field("edges[3].to"), .field("edges[3].to")), (.byteOffset(17), .byteOffset(17)), (nil, nil),
      ]
      for (location, expected) in places {
        let error = GraphDecodingError(SnapshotReadingError(reason, at: location, "edges[3].to: why"))
        #expect(error.reason.rawValue == reason.rawValue)
        #expect(error.location == expected)
        #expect(error.message == "edges[3].to: why")
      }
    }
  }
}
