#ifndef CAFE_CSQLITE_SHIM_H
#define CAFE_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type cafe_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_config is variadic, which Swift cannot call. Sets how large a statement journal (the
/// undo log of open savepoints) grows in memory before it spills to a temporary file; only takes
/// effect before SQLite is initialized (the first open), else SQLITE_MISUSE.
static inline int cafe_sqlite_statement_journal_spill(int bytes) { return sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes); }
#endif
