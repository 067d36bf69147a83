import SQLite

extension NotifyStore {
    /// notification-service's tables, one migration per schema version.
    static let migrations = [
        Migration(1, """
            CREATE TABLE devices (
                device_id TEXT PRIMARY KEY,
                user_id TEXT,
                channel TEXT NOT NULL,
                language TEXT NOT NULL,
                locale TEXT NOT NULL,
                authorization TEXT NOT NULL,
                launched_ms INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX devices_user ON devices (user_id);
            CREATE TABLE notifications (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                notification_id TEXT NOT NULL UNIQUE,
                device_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                collapse_id TEXT NOT NULL,
                body TEXT NOT NULL,
                delivered INTEGER NOT NULL,
                reason TEXT,
                UNIQUE (device_id, kind, collapse_id)
            );
            CREATE TABLE processed_events (event_id TEXT PRIMARY KEY, at_ms INTEGER NOT NULL) WITHOUT ROWID;
            """),
        // A repeating region reminder notifies once per arrival under one collapse id, so "once"
        // gets its own key; pickup and region reminders get their tables; café names are learned
        // from order snapshots for reminder titles.
        Migration(2, """
            CREATE TABLE notifications_v2 (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                notification_id TEXT NOT NULL UNIQUE,
                device_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                collapse_id TEXT NOT NULL,
                once_key TEXT NOT NULL,
                body TEXT NOT NULL,
                delivered INTEGER NOT NULL,
                reason TEXT,
                UNIQUE (device_id, kind, once_key)
            );
            INSERT INTO notifications_v2 (seq, notification_id, device_id, kind, collapse_id, once_key, body, delivered, reason)
                SELECT seq, notification_id, device_id, kind, collapse_id, collapse_id, body, delivered, reason FROM notifications;
            DROP TABLE notifications;
            ALTER TABLE notifications_v2 RENAME TO notifications;
            CREATE INDEX notifications_inbox ON notifications (device_id, delivered, seq);
            CREATE TABLE pickup_reminders (
                order_id TEXT PRIMARY KEY,
                due_ms INTEGER NOT NULL,
                snapshot TEXT NOT NULL,
                state TEXT NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX pickup_reminders_due ON pickup_reminders (state, due_ms);
            CREATE TABLE region_reminders (
                reminder_id TEXT NOT NULL UNIQUE,
                device_id TEXT NOT NULL,
                cafe_id TEXT NOT NULL,
                text TEXT NOT NULL,
                one_shot INTEGER NOT NULL,
                state TEXT NOT NULL,
                created_ms INTEGER NOT NULL,
                fired_ms INTEGER
            );
            CREATE INDEX region_reminders_arrival ON region_reminders (device_id, cafe_id, state);
            CREATE TABLE cafes (cafe_id TEXT PRIMARY KEY, name TEXT NOT NULL) WITHOUT ROWID;
            """),
        // Retention needs an age for every row: when a notification was created, when a reminder
        // ended. Existing notifications take it from their stored createdAt (a body that cannot be
        // read gets 0 and goes at the first prune: the inbox cannot decode it anyway); reminders
        // that already ended take the closest time they have (a pickup reminder's due time, a
        // region reminder's firing or, cancelled, its creation).
        Migration(3, """
            ALTER TABLE notifications ADD COLUMN created_ms INTEGER NOT NULL DEFAULT 0;
            UPDATE notifications SET created_ms = COALESCE(CASE WHEN json_valid(body) THEN
                CAST(round((julianday(json_extract(body, '$.createdAt')) - 2440587.5) * 86400000) AS INTEGER) END, 0);
            CREATE INDEX notifications_created ON notifications (created_ms);
            ALTER TABLE pickup_reminders ADD COLUMN ended_ms INTEGER;
            UPDATE pickup_reminders SET ended_ms = due_ms WHERE state <> 'pending';
            CREATE INDEX pickup_reminders_ended ON pickup_reminders (ended_ms);
            ALTER TABLE region_reminders ADD COLUMN ended_ms INTEGER;
            UPDATE region_reminders SET ended_ms = COALESCE(fired_ms, created_ms) WHERE state <> 'active';
            CREATE INDEX region_reminders_ended ON region_reminders (ended_ms);
            """),
        // The apns channel (issue 27): a device's APNs destination and when APNs retired its
        // token or throttled it (429); each notification sent to APNs carries its push's state, attempts, next try
        // and last answer in its own row, written in one transaction with what caused it.
        Migration(4, """
            ALTER TABLE devices ADD COLUMN apns_token TEXT;
            ALTER TABLE devices ADD COLUMN apns_environment TEXT;
            ALTER TABLE devices ADD COLUMN apns_topic TEXT;
            ALTER TABLE devices ADD COLUMN apns_retired_ms INTEGER;
            ALTER TABLE devices ADD COLUMN apns_throttled_until_ms INTEGER;
            ALTER TABLE notifications ADD COLUMN push_state TEXT;
            ALTER TABLE notifications ADD COLUMN push_attempts INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE notifications ADD COLUMN push_next_ms INTEGER;
            ALTER TABLE notifications ADD COLUMN push_expires_ms INTEGER;
            ALTER TABLE notifications ADD COLUMN push_status INTEGER;
            ALTER TABLE notifications ADD COLUMN push_reason TEXT;
            ALTER TABLE notifications ADD COLUMN push_updated_ms INTEGER;
            CREATE INDEX notifications_push_due ON notifications (push_state, push_next_ms) WHERE push_state IS NOT NULL;
            CREATE TABLE live_activities (
                order_id TEXT PRIMARY KEY,
                device_id TEXT NOT NULL,
                token TEXT NOT NULL,
                environment TEXT NOT NULL,
                topic TEXT NOT NULL,
                ts INTEGER,
                payload TEXT,
                priority INTEGER,
                state TEXT,
                attempts INTEGER NOT NULL DEFAULT 0,
                next_ms INTEGER,
                expires_ms INTEGER,
                status INTEGER,
                reason TEXT,
                updated_ms INTEGER
            ) WITHOUT ROWID;
            CREATE INDEX live_activities_due ON live_activities (state, next_ms);
            """),
        // The webhook channel (issue 27): a device's receiver (an id from the catalog's allow-list,
        // never a URL) and its address there; a notification's push row says which channel sends
        // it, so the APNs and webhook senders each read only their own.
        Migration(5, """
            ALTER TABLE devices ADD COLUMN webhook_endpoint TEXT;
            ALTER TABLE devices ADD COLUMN webhook_recipient TEXT;
            CREATE INDEX devices_webhook ON devices (webhook_endpoint) WHERE webhook_endpoint IS NOT NULL;
            ALTER TABLE notifications ADD COLUMN push_channel TEXT NOT NULL DEFAULT 'apns';
            """),
    ]

    /// The service's own event-id table retired: ids are deduped once for every consumer, by the
    /// runtime's StreamFollower. A step of its own (not migration 4 of the tables above), so the
    /// service's schema version still counts the tables it has.
    static let retiredTables = [Migration(1, "DROP TABLE IF EXISTS processed_events;")]
}
