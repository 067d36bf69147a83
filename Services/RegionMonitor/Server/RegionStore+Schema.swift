import SQLite

/// region-monitor's tables, one migration per schema change (never edited once shipped).
extension RegionStore {
    /// Version 1: records, nearest answers, device statuses and each device's last fix. Version 2:
    /// monitors and conditions from the request socket, recent fixes instead of the last one, and
    /// each device's precision. Version 3: no refinement column. Version 4: each record's last matching
    /// sighting. Version 5: the state each record was last decided in. Version 6: a record's last
    /// event as columns (its date, flags and refinement), no longer as JSON. Version 7: no index of
    /// records by device. Version 8: records and nearest answers keyed by the device's storage
    /// number.
    static let migrations = [
        Migration(1, """
            CREATE TABLE records (
                monitor TEXT NOT NULL,
                identifier TEXT NOT NULL,
                device_id TEXT NOT NULL,
                state TEXT NOT NULL,
                refinement TEXT,
                last_event TEXT,
                PRIMARY KEY (monitor, identifier, device_id)
            ) WITHOUT ROWID;
            CREATE INDEX records_device ON records (device_id);
            CREATE TABLE nearest (device_id TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
            CREATE TABLE devices (
                device_id TEXT PRIMARY KEY,
                authorization TEXT NOT NULL,
                foreground INTEGER NOT NULL,
                ranging_available INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE last_fixes (
                device_id TEXT PRIMARY KEY,
                latitude REAL NOT NULL,
                longitude REAL NOT NULL,
                horizontal_accuracy REAL NOT NULL,
                precise INTEGER NOT NULL,
                observed_ms INTEGER NOT NULL
            ) WITHOUT ROWID;
            """),
        Migration(2, """
            CREATE TABLE monitors (name TEXT PRIMARY KEY, owner TEXT) WITHOUT ROWID;
            CREATE TABLE conditions (
                monitor TEXT NOT NULL,
                identifier TEXT NOT NULL,
                position INTEGER NOT NULL,
                spec TEXT NOT NULL,
                PRIMARY KEY (monitor, identifier)
            ) WITHOUT ROWID;
            DROP TABLE last_fixes;
            CREATE TABLE fixes (
                device_id TEXT NOT NULL,
                observed_ms INTEGER NOT NULL,
                latitude REAL NOT NULL,
                longitude REAL NOT NULL,
                horizontal_accuracy REAL NOT NULL,
                precise INTEGER NOT NULL,
                PRIMARY KEY (device_id, observed_ms)
            ) WITHOUT ROWID;
            CREATE INDEX fixes_time ON fixes (observed_ms);
            ALTER TABLE devices ADD COLUMN precise INTEGER NOT NULL DEFAULT 1;
            """),
        // A record keeps its last event as the envelope carried it (encoded once); the refinement
        // inside it made the separate column a third copy that nothing read.
        Migration(3, "ALTER TABLE records DROP COLUMN refinement;"),
        // A satisfied beacon record's last matching sighting, saved in batches: after a restart its
        // exit fires when it is due. NULL in records from before: they exit one timeout after the start.
        Migration(4, "ALTER TABLE records ADD COLUMN last_seen_ms INTEGER;"),
        // The state a record was last decided in (satisfied or unsatisfied), kept while it is
        // unknown: after a restart a circle unknown since it was satisfied still leaves only past its
        // hysteresis. NULL while never decided, and in unknown records from before.
        Migration(5, "ALTER TABLE records ADD COLUMN decided TEXT;"),
        // A record's last event was its envelope's JSON (about 230 of a row's 340 bytes), and a
        // restart decoded it for every record: half of a 10⁶-device restart's CPU. The event is
        // the row's key and state plus these columns, and `last_event` is NULL in rows written
        // since. Rows from before keep their JSON until their record next changes (a restore still
        // reads it): no upgrade rewrites 10⁶ rows while the service waits to start.
        Migration(6, """
            ALTER TABLE records ADD COLUMN event_ms INTEGER;
            ALTER TABLE records ADD COLUMN flags TEXT;
            ALTER TABLE records ADD COLUMN refinement_uuid TEXT;
            ALTER TABLE records ADD COLUMN refinement_major INTEGER;
            ALTER TABLE records ADD COLUMN refinement_minor INTEGER;
            """),
        // Only a withdrawn authorization looked records up by device, and it now deletes them by
        // key, condition by condition (`deleteLocation`). The index cost every first-seen device
        // one more insert at a random page of a 10⁵–10⁶-entry b-tree (callgrind of `load-test bench
        // --only e`: about 8,000 instructions of its 156,000), and that page written to the log.
        Migration(7, "DROP INDEX records_device;"),
        // Keyed by device id, a first-seen device's record and nearest answer each went to a
        // random page of its table: at 10⁵–10⁶ devices mostly not in the page cache, and written
        // to the log whole for one row. Keyed by a number the engine gives in increasing order
        // (`DeviceTable.storageNumber`), they go where the device before went: `load-test bench
        // --only e` at 10⁶ devices 46–57 → 33–34 µs a device, and flatter from 10⁴. The rows
        // keep the device id (records) or carry it in their JSON (nearest) for a restore; a
        // withdrawal deletes a device's rows by its number. The upgrade rewrites both tables once.
        Migration(8, """
            CREATE TABLE device_numbers (number INTEGER PRIMARY KEY, device_id TEXT NOT NULL UNIQUE);
            INSERT INTO device_numbers (device_id) SELECT device_id FROM records UNION SELECT device_id FROM nearest;
            CREATE TABLE records_by_number (
                number INTEGER NOT NULL,
                monitor TEXT NOT NULL,
                identifier TEXT NOT NULL,
                device_id TEXT NOT NULL,
                state TEXT NOT NULL,
                last_event TEXT,
                last_seen_ms INTEGER,
                decided TEXT,
                event_ms INTEGER,
                flags TEXT,
                refinement_uuid TEXT,
                refinement_major INTEGER,
                refinement_minor INTEGER,
                PRIMARY KEY (number, monitor, identifier)
            ) WITHOUT ROWID;
            INSERT INTO records_by_number (number, monitor, identifier, device_id, state, last_event, last_seen_ms, decided, event_ms,
                flags, refinement_uuid, refinement_major, refinement_minor)
              SELECT n.number, r.monitor, r.identifier, r.device_id, r.state, r.last_event, r.last_seen_ms, r.decided, r.event_ms,
                r.flags, r.refinement_uuid, r.refinement_major, r.refinement_minor
              FROM records r JOIN device_numbers n ON n.device_id = r.device_id ORDER BY n.number;
            DROP TABLE records;
            ALTER TABLE records_by_number RENAME TO records;
            CREATE TABLE nearest_by_number (number INTEGER PRIMARY KEY, value TEXT NOT NULL);
            INSERT INTO nearest_by_number (number, value)
              SELECT n.number, x.value FROM nearest x JOIN device_numbers n ON n.device_id = x.device_id ORDER BY n.number;
            DROP TABLE nearest;
            ALTER TABLE nearest_by_number RENAME TO nearest;
            DROP TABLE device_numbers;
            """),
    ]
}
