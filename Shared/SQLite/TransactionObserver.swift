/// Told when a transaction level of a `Database` opens, commits or rolls back, so in-memory state
/// that mirrors what a transaction wrote (an outbox's events waiting to be sent) follows it exactly:
/// kept when the outermost level commits, dropped when its level rolls back.
///
/// `depth` is the level's depth: 1 for the outermost transaction, 2 for a savepoint inside it, …
public protocol TransactionObserver: AnyObject {
    func transactionBegan(depth: Int)
    /// The outermost transaction is about to commit: the last writes that belong in it (an
    /// outbox's rows, written together). Throwing rolls the whole transaction back.
    func transactionWillCommit() throws
    func transactionCommitted(depth: Int)
    func transactionRolledBack(depth: Int)
}

extension TransactionObserver {
    public func transactionWillCommit() throws {}
}

/// Observers are held weakly: an observer usually holds its database, not the other way round.
struct WeakTransactionObserver {
    weak var observer: (any TransactionObserver)?
}
