// Package store keeps OpenTelemetry spans in a SQLite database and answers
// the queries of loom's trace viewer.
//
// [Store.EncodePart] and [Store.WriteEncoded] take whole runs from loom's
// own tracer provider, each as one row ([Store.WriteParts] does both). [Exporter] is an
// [go.opentelemetry.io/otel/sdk/trace.SpanExporter] for SDK spans: put it
// under a batch span processor (observe.BatchProcessor, as observe.Setup
// does when a sampler or span processors are configured, or the SDK's)
// and every finished span lands in the database, each
// ExportSpans call in one transaction. [Store] is the database itself:
// writes, retention and the queries behind the viewer's JSON API.
//
// # Database
//
// The database is a single SQLite file opened with modernc.org/sqlite (pure
// Go, no cgo). Its default location is [DefaultPath]:
// $LOOM_TRACE_DB if set, else traces.db under os.UserCacheDir()/loom (or
// os.UserConfigDir()/loom where there is no cache directory). It runs in WAL
// mode with a busy timeout, and every write is one IMMEDIATE transaction, so
// several processes can record into the same file at once while a viewer
// reads it. The schema version is kept in PRAGMA user_version; opening a
// database written by a newer loom fails with [ErrSchemaTooNew] instead of
// guessing.
//
// Four tables hold the data:
//
//   - parts: what loom's own tracer provider (observe.NewTracerProvider,
//     the default of observe.Setup) recorded of one trace in one process,
//     one row per local root span (and one per interval for a run still
//     going), written by [Store.WriteEncoded]: its spans as one compact JSON
//     array with the fields of the spans table;
//   - spans: one row per span that came through [Exporter] or
//     [Store.Write] — trace and span id, parent id, name, kind,
//     start and end (Unix nanoseconds), status code and message, attributes
//     (a JSON object), events (a JSON array) and instrumentation scope;
//   - texts: long attribute values that repeat in every run (an agent's
//     description, a system prompt), stored once; a part refers to one as
//     {"$text": id} in place of the value, and [Store.Trace] puts the value
//     back. Retention keeps them (any process may refer to one), so the
//     table is bounded instead ([Config.MaxSharedTexts]): past the bound,
//     values stay within their runs;
//   - traces: one summary row per trace, kept up to date as its spans arrive
//     — the top agent (the earliest-starting invoke_agent span) with its
//     input and output previews, status ("running" until the root span
//     arrives, then "ok", "no_answer", "error", "limit", "waiting" or
//     "eval", an evaluation, whose scores the row also keeps; an
//     earlier part of a resumed run becomes "continued"), its loom run id,
//     start, end, span and failed-step counts (a failure passed up through
//     nested spans counts once), model calls, tokens and estimated cost.
//
// A trace's spans may come from parts and span rows alike (several
// processes, several providers); [Store.Trace] returns them together, by
// start time. A database of schema version 1 (no parts or texts) is
// migrated when opened by adding those tables and a trace count; its rows
// stay as they are.
//
// Tokens and cost of a trace are the sums over its "chat" spans. A chat span
// without a loom.cost.usd attribute is priced from its gen_ai.provider.name
// and gen_ai.request.model with the store's price table
// ([github.com/loomwork/loom/model/pricing]); when a model has no price the
// trace's cost is marked incomplete.
//
// # Spool
//
// A short-lived program (a one-shot CLI run) need not open the database at
// all: a [Spool] appends its encoded spans to a file of its own in the
// folder [SpoolDir] names, beside the database, one write per batch, and
// the next [Open] of the database, or the next [Store.Traces] or
// [Store.Trace] of an open one, stores them, up to 256 files a
// transaction. A spool file is locked by its
// writer for as long as the writer lives, so a reader tells a running
// writer's file (it stores the whole frames written so far and leaves the
// file) from a finished or killed one's (it stores the rest and deletes
// the file). Storing is idempotent, so a reader that dies between its
// commit and the delete loses and duplicates nothing. A folder that no
// reader visits is bounded: [OpenSpool] stores it when it holds many
// files.
//
// # Retention
//
// The store never grows without limit: each write also prunes, oldest traces
// first, what is older than [Config.MaxAge] or beyond [Config.MaxTraces] traces or
// [Config.MaxSpans] spans, deleting at most a bounded number of rows per write
// so a write never stalls on a large backlog.
package store
