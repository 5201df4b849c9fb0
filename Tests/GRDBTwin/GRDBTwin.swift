// A self-contained twin of GRDB's transaction-observation layout (GRDB 7's
// `DatabaseQueue` → `SerializedDatabase` → `Database` → `DatabaseObservationBroker` →
// `[TransactionObservation]` → `strongObserver`), without SQLite: the tests need its object graph,
// not a database. Type and property names are GRDB's, so that the advice a graph gives here is the
// advice it gives on GRDB.

/// An object told when a transaction commits.
public protocol TransactionObserver: AnyObject {
  /// The transaction was committed.
  func databaseDidCommit(_ db: Database)
}

/// The database connection's serial access point, as GRDB's `DatabaseQueue`.
public final class DatabaseQueue {
  let writer = SerializedDatabase()

  public init() {}

  /// Adds a transaction observer for `extent`, as GRDB's `add(transactionObserver:extent:)`.
  public func add(
    transactionObserver: some TransactionObserver,
    extent: Database.TransactionObservationExtent = .observerLifetime
  ) {
    writer.db.broker.add(transactionObserver: transactionObserver, extent: extent)
  }

  /// Removes a transaction observer, as GRDB's `remove(transactionObserver:)`.
  public func remove(transactionObserver: some TransactionObserver) {
    writer.db.broker.remove(transactionObserver: transactionObserver)
  }

  /// Commits an empty transaction: the observers are told.
  public func commit() {
    writer.db.broker.databaseDidCommit(writer.db)
  }
}

/// The serialized access to one connection.
final class SerializedDatabase {
  let db = Database()
}

/// A database connection.
public final class Database {
  /// How long a transaction observer is observed.
  public enum TransactionObservationExtent: Sendable {
    /// Until the observer is deallocated: the database holds it weakly.
    case observerLifetime
    /// Until the next transaction ends.
    case nextTransaction
    /// Until the database is closed: the database holds it strongly.
    case databaseLifetime
  }

  private(set) var observationBroker: DatabaseObservationBroker?

  var broker: DatabaseObservationBroker {
    if let observationBroker { return observationBroker }
    let made = DatabaseObservationBroker(self)
    observationBroker = made
    return made
  }
}

/// Keeps the transaction observers of one database.
final class DatabaseObservationBroker {
  private unowned let database: Database
  private var transactionObservations: [TransactionObservation] = []

  init(_ database: Database) { self.database = database }

  func add(transactionObserver: some TransactionObserver, extent: Database.TransactionObservationExtent) {
    transactionObservations.append(TransactionObservation(observer: transactionObserver, extent: extent))
  }

  func remove(transactionObserver: some TransactionObserver) {
    transactionObservations.removeAll { $0.isWrapping(transactionObserver) }
  }

  func databaseDidCommit(_ db: Database) {
    for observation in transactionObservations { observation.observer?.databaseDidCommit(db) }
    transactionObservations.removeAll { $0.extent == .nextTransaction || $0.observer == nil }
  }
}

/// One observer and its extent: held weakly or strongly, as GRDB's `TransactionObservation`.
final class TransactionObservation {
  let extent: Database.TransactionObservationExtent
  private weak var weakObserver: (any TransactionObserver)?
  private var strongObserver: (any TransactionObserver)?

  var observer: (any TransactionObserver)? { strongObserver ?? weakObserver }

  init(observer: any TransactionObserver, extent: Database.TransactionObservationExtent) {
    self.extent = extent
    switch extent {
    case .observerLifetime: weakObserver = observer
    case .nextTransaction, .databaseLifetime: strongObserver = observer
    }
  }

  func isWrapping(_ observer: any TransactionObserver) -> Bool { self.observer === observer }
}
