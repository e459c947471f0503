// Package sqlite keeps loom's checkpoints ([Store]) and sessions
// ([Sessions]) in a SQLite file, through modernc.org/sqlite (pure Go, no
// cgo). Both pass the conformance suite of
// [github.com/loomwork/loom/checkpoint/checkpointtest].
//
// # Database
//
// [Open] and [OpenSessions] take a [Config] whose Path is the file; an
// empty Path means [DefaultPath]: $LOOM_CHECKPOINT_DB if set, else
// checkpoints.db under os.UserCacheDir()/loom. A Store and a Sessions may
// share one file, and so may an application's own tables: loom's tables
// are named loom_*.
//
// The file runs in WAL mode with a busy timeout ([Config.BusyTimeout]).
// Every write is one IMMEDIATE transaction that reads the head and writes
// the new row, so the compare-and-swap of [checkpoint.Store.Put] and
// [checkpoint.SessionStore.Append] holds across processes sharing the
// file, and a process killed mid-write leaves the run at its last
// committed checkpoint. Reads go through a separate pool of read-only
// connections and never wait for writers.
//
// Opening creates the schema in an empty file, inside one IMMEDIATE
// transaction so that processes opening a new file at once create it
// once. The loom_schema table records the schema version; a file whose
// loom_* tables are not loom's, or were written by a newer loom, fails to
// open with an error wrapping [checkpoint.ErrCorrupt] instead of being
// changed. Each row carries a format version, checked on every read.
//
// Checkpoint times are kept as Unix nanoseconds; State, Events and turns
// as the caller's bytes; Meta as a JSON object.
package sqlite
