import SQLite

extension OrderStore {
    /// order-service's tables, one migration per schema version.
    static let migrations = [
        Migration(1, """
            CREATE TABLE preferences (user_id TEXT PRIMARY KEY, kind TEXT NOT NULL, cafe_id TEXT) WITHOUT ROWID;
            CREATE TABLE device_nearest (device_id TEXT PRIMARY KEY, major INTEGER NOT NULL, minor INTEGER NOT NULL, at_ms INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE last_cafe (user_id TEXT PRIMARY KEY, cafe_id TEXT NOT NULL, at_ms INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE reservations (
                reservation_id TEXT PRIMARY KEY,
                cafe_id TEXT NOT NULL,
                window_start_ms INTEGER NOT NULL,
                user_id TEXT,
                status TEXT NOT NULL CHECK (status IN ('held', 'used', 'released')),
                expires_ms INTEGER NOT NULL,
                order_id TEXT
            ) WITHOUT ROWID;
            CREATE INDEX reservations_window ON reservations (cafe_id, window_start_ms);
            CREATE TABLE orders (
                order_id TEXT PRIMARY KEY,
                cafe_id TEXT NOT NULL,
                user_id TEXT,
                device_id TEXT,
                state TEXT NOT NULL,
                snapshot TEXT NOT NULL,
                payment_token TEXT,
                created_ms INTEGER NOT NULL,
                updated_ms INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX orders_device ON orders (device_id, state);
            CREATE INDEX orders_state ON orders (state);
            CREATE TABLE idempotency (
                key TEXT PRIMARY KEY,
                request TEXT NOT NULL,
                reply BLOB NOT NULL,
                created_ms INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE order_audit (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                order_id TEXT NOT NULL,
                from_state TEXT,
                to_state TEXT NOT NULL,
                actor TEXT NOT NULL,
                reason TEXT,
                at_ms INTEGER NOT NULL
            );
            CREATE INDEX order_audit_order ON order_audit (order_id);
            """),
        // Items 86'd (sold out) at a café, and put back.
        Migration(2, """
            CREATE TABLE menu_availability (
                cafe_id TEXT NOT NULL,
                item_id TEXT NOT NULL,
                available INTEGER NOT NULL,
                reason TEXT,
                by TEXT NOT NULL,
                at_ms INTEGER NOT NULL,
                PRIMARY KEY (cafe_id, item_id)
            ) WITHOUT ROWID;
            """),
        // Retention (OrderService+Retention): keys, finished orders and past reservations are found
        // by age through an index, so each prune batch reads only what it deletes.
        // The idempotency table becomes an ordinary (rowid) table: a stored reply is about 1 KB, and a
        // WITHOUT ROWID row that large spills most of itself into an overflow page of its own (measured:
        // 4.5 KiB on disk per key, for 1.1 KiB of data). Audit rows are kept in their order's key
        // (order id, then a number within the order), without the index on order_id that cost 216
        // bytes an order beside 369 of rows; numbers carried over stay in their order.
        Migration(3, """
            CREATE TABLE idempotency_rows (
                key TEXT PRIMARY KEY,
                request TEXT NOT NULL,
                reply BLOB NOT NULL,
                created_ms INTEGER NOT NULL
            );
            INSERT INTO idempotency_rows (key, request, reply, created_ms) SELECT key, request, reply, created_ms FROM idempotency;
            DROP TABLE idempotency;
            ALTER TABLE idempotency_rows RENAME TO idempotency;
            CREATE INDEX idempotency_created ON idempotency (created_ms);
            CREATE TABLE order_audit_rows (
                order_id TEXT NOT NULL,
                id INTEGER NOT NULL,
                from_state TEXT,
                to_state TEXT NOT NULL,
                actor TEXT NOT NULL,
                reason TEXT,
                at_ms INTEGER NOT NULL,
                PRIMARY KEY (order_id, id)
            ) WITHOUT ROWID;
            INSERT INTO order_audit_rows (order_id, id, from_state, to_state, actor, reason, at_ms)
                SELECT order_id, id, from_state, to_state, actor, reason, at_ms FROM order_audit;
            DROP TABLE order_audit;
            ALTER TABLE order_audit_rows RENAME TO order_audit;
            DROP INDEX orders_state;
            CREATE INDEX orders_state ON orders (state, updated_ms);
            """),
        // The latest approach-area decision per phone and café that says "outside" (region events),
        // for pacing: one row per phone and café at most, deleted when the phone comes near or
        // withdraws its location.
        Migration(4, """
            CREATE TABLE device_away (device_id TEXT NOT NULL, cafe_id TEXT NOT NULL, at_ms INTEGER NOT NULL,
                PRIMARY KEY (device_id, cafe_id)) WITHOUT ROWID;
            """),
    ]
}
