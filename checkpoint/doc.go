// Package checkpoint saves runs and sessions so that they outlive the
// process: a [Store] keeps each run's checkpoints, a [SessionStore] each
// conversation's turns. Both keep opaque JSON; this package imports nothing
// of loom, and the engine decides what a checkpoint's State and Events hold.
//
// # Contract
//
// A run's checkpoints form a line 1, 2, 3, ... . [Store.Put] appends the
// next one and is compare-and-swap on the head: a Put whose Seq is not the
// head's Seq+1 (because another goroutine, process or resume got there
// first) fails with an error wrapping [ErrConflict] and writes nothing. Of
// any number of writers racing for the same Seq exactly one wins. The same
// holds for [SessionStore.Append] with the session's turn count. This is
// what makes a double "approve" advance a run once.
//
// [ListFrom] reads the end of a run's line, in one call on the stores
// that implement [TailReader] (all three shipped ones).
//
// Every store passes one conformance suite,
// [github.com/loomwork/loom/checkpoint/checkpointtest]. Three ship:
//
//   - [NewMemory] and [NewMemorySessions]: in the process's memory;
//   - [github.com/loomwork/loom/checkpoint/sqlite]: a SQLite file, by
//     default under the user's cache directory; several processes may
//     share it;
//   - [github.com/loomwork/loom/checkpoint/postgres]: PostgreSQL through
//     pgx.
//
// Checkpoints and sessions are separate stores because their Delete
// methods mean different things; the SQL stores share their plumbing and
// may share one database.
//
// What a store reads back: times in UTC with nanosecond precision (see
// [StoredTime]), empty State, Events and Meta as nil, and copies, never the
// caller's slices or maps.
//
// # Errors
//
// Errors wrap one of the sentinels [ErrNotFound], [ErrConflict],
// [ErrCorrupt], [ErrInvalid] and [ErrClosed] (or the context's error), and
// the typed [*NotFoundError], [*ConflictError] and [*CorruptError] carry
// the run, the Seq and what was wrong. Messages start with the store
// ("checkpoint/sqlite: ...") and end with what to do.
//
// # Zero and negative values
//
// One rule throughout: a zero value means the default and a negative one
// is an error wrapping [ErrInvalid], unless a field's doc says otherwise.
// So [RunFilter.Limit] 0 and a Sessions limit of 0 mean "no limit", a zero
// [RunFilter.UpdatedBefore] means "no bound", and a zero time passed to
// [Store.Prune] deletes nothing. Data fields are not configuration: a
// checkpoint's Seq must be 1 or more and its Time must be set.
//
// # Corruption
//
// "Corrupt" means stored data this package did not write or cannot read:
// a row with a format version it does not know (written by a newer loom,
// or by someone else), a State, Events or turn that is not valid JSON, Meta
// that is not a JSON object of strings, or a table with loom's name but
// not loom's columns. Reading such data fails with a [*CorruptError]
// naming the table, the run and Seq, and the reason; it is never repaired
// or skipped silently. Deleting the run (or session) removes a bad row.
//
// # Retention
//
// Stores keep everything until told otherwise. [Store.Prune] deletes whole
// runs whose newest checkpoint is older than a time, never a part of a
// run, so a run is either resumable or gone; [Store.Delete] removes one
// run. Call Prune from a periodic job with the retention the application
// needs. Sessions are kept until deleted.
package checkpoint
