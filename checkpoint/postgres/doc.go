// Package postgres keeps loom's checkpoints ([Store]) and sessions
// ([Sessions]) in PostgreSQL through pgx (github.com/jackc/pgx/v5). Both
// pass the conformance suite of
// [github.com/loomwork/loom/checkpoint/checkpointtest], run against a real
// server (see .ci/postgres.sh).
//
// # Connecting
//
// [Open] and [OpenSessions] take a [Config]: with a connection string
// (Config.DSN) they own their pool; with the caller's *pgxpool.Pool
// (Config.Pool) they leave it open on Close. Tables are named loom_* so
// they can share a database with an application's own; [Config.Schema]
// puts them in a schema of their own instead (created when missing).
//
// # Schema
//
// Opening creates the tables when missing, in one transaction holding an
// advisory lock, so processes opening a new database at once create them
// once. The loom_schema table records the schema version; tables with
// loom's names that are not loom's, or a schema written by a newer loom,
// fail the open with an error wrapping [checkpoint.ErrCorrupt] and are
// left untouched. Each row carries a format version, checked on every
// read.
//
// # Compare-and-swap
//
// A run's row in loom_runs holds its head. [Store.Put] of checkpoint 1
// inserts that row only if it is absent (ON CONFLICT DO NOTHING); a later
// checkpoint moves the head only from Seq-1 (UPDATE ... WHERE head =
// Seq-1). Row locks make concurrent writers wait for each other, and the
// loser of a race updates no row and gets [checkpoint.ErrConflict]; the
// (run_id, seq) primary key of loom_checkpoints backs this up. Sessions
// work the same way on their turn count.
//
// State, Events and turns are kept as the caller's bytes (bytea), times as
// Unix nanoseconds, Meta as jsonb (so [Store.Runs] filters with @>).
package postgres
