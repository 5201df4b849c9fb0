internal import RetainGraphSupport
internal import Synchronization

/// Where each object node's object was when it was walked: `addresses[id]`, 0 for nodes without
/// an object (a value root, a closure context) and empty for a graph read from JSON or made from
/// parts. The address-to-node table behind ``ObjectGraph/node(for:)`` is made on first use.
final class ObjectAddresses: Sendable {
  let addresses: ChunkedArray<UInt>
  private let table = Mutex<[UInt: Int32]?>(nil)

  init(_ addresses: ChunkedArray<UInt>) { self.addresses = addresses }

  /// The node whose object was at `address`, if any.
  func node(at address: UInt) -> Int? {
    guard address != 0, !addresses.isEmpty else { return nil }
    return table.withLock { table in
      if table == nil {
        var made: [UInt: Int32] = [:]
        made.reserveCapacity(addresses.count)
        for (id, address) in addresses.enumerated() where address != 0 { made[address] = Int32(id) }
        table = made
      }
      return table?[address].map(Int.init)
    }
  }
}
