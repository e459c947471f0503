package store

import "errors"

// ErrSchemaTooNew is returned by [Open] for a database whose schema was
// written by a newer version of loom.
var ErrSchemaTooNew = errors.New("store: the trace database was written by a newer loom")

// ErrClosed is returned by operations on a closed [Store] or a shut-down
// [Exporter].
var ErrClosed = errors.New("store: closed")

// ErrNotFound is returned by [Store.Trace] for an unknown trace id.
var ErrNotFound = errors.New("store: trace not found")

// ErrInvalidConfig is wrapped by the error of [Open] for a [Config] it
// refuses; the message names the field.
var ErrInvalidConfig = errors.New("invalid config")

// ErrWrongEncoder is returned by [Store.WriteEncoded] and
// [Spool.WriteEncoded] for a part that the other one encoded: each writes
// only what its own EncodePart made.
var ErrWrongEncoder = errors.New("store: part encoded for another writer")

// ErrSpoolUnsupported is returned by [OpenSpool] where the system cannot
// lock a spool file (see [Spool]); the caller writes to the database
// instead.
var ErrSpoolUnsupported = errors.New("store: spool files need file locks, which this system lacks")
