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
