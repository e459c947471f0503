// Package viewer is loom's trace viewer: web pages and a JSON API over the
// trace store of package [github.com/loomwork/loom/observe/store], served
// by `loom observe`. It is apart from package observe, which sets up
// OpenTelemetry, so a program that records traces links no web server.
//
// [NewHandler] serves the viewer over a store ([store.Store]): a list of runs (outermost
// agent, input preview, status, start, duration, tokens, cost; filters by
// status and agent; paging; live refresh) and, per run, the span tree as a
// timeline with the details of the selected span. [Serve] runs it as an
// HTTP server on 127.0.0.1:7893, as `loom observe` does. The pages are
// embedded in the binary and load nothing from the network. Requests whose
// Host header is not a loopback name are refused (see [HandlerConfig.AllowedHosts]).
//
// # JSON API
//
// All responses are JSON; errors are {"error": "message"} with status 400
// (bad parameter), 403 (host not allowed), 404 (unknown trace) or 500.
//
// GET /api/traces lists runs, newest first, as a [store.Page]:
//
//	{"traces": [TraceSummary…], "next": "cursor", "seq": 42}
//
// Query parameters:
//
//   - status: ok, no_answer (answered, but no snippet computed a value),
//     error, limit, waiting (paused for an answer), continued (an earlier
//     part of a run resumed in another process), eval (an evaluation of
//     package evals that ran to its end) or running;
//   - agent: the outermost agent's name;
//   - limit: page size, default 50, at most 500;
//   - before: the "next" cursor of the previous page, for the page after it;
//   - since: a "seq" from an earlier response; returns only the runs
//     created or updated after it, oldest change first. Poll with it to
//     keep a list current: each response's seq is the next since.
//
// A TraceSummary ([store.TraceSummary]) has trace_id, agent, root_name,
// input_preview, output_preview, status, error, start_time, end_time
// (RFC 3339), duration_ms, spans, errors, model_calls, tool_calls,
// input_tokens, output_tokens, cached_tokens, total_tokens, cost_usd,
// cost_complete (false when a model had no known price) and seq; an
// evaluation's also has eval: {dataset, model, solver, problems,
// samples_per_problem, samples, passed, pass_at: {"1": 0.5, …}}. Its
// samples are its spans with a loom.eval.problem attribute (with
// loom.eval.class and loom.eval.score).
//
// GET /api/traces/{traceID} returns one run with all its spans, ordered by
// start time:
//
//	{"summary": TraceSummary, "spans": [Span…]}
//
// A Span has trace_id, span_id, parent_span_id, name, kind, start_time,
// end_time, offset_ms (from the run's start), duration_ms, status ("unset",
// "ok" or "error"), status_message, attributes (an object of the span's
// attributes, exactly as recorded), events ([{name, time, attributes}],
// including "exception" events of recorded errors) and scope.
//
// GET /api/agents lists the distinct outermost agents:
//
//	{"agents": [{"name": "coder", "traces": 12}, …]}
//
// GET /api/stats?status=&agent= aggregates the runs the filters select
// ([store.Stats]): traces, ok, errors, limits, no_answer, running, waiting,
// continued, evals, error_rate (errors, limits and no_answer over finished
// runs: neither waiting nor continued ones, nor evaluations), input_tokens, output_tokens, cost_usd,
// model_calls, tool_calls, avg_duration_ms and since (the oldest start).
//
// GET /api/info describes the server: {"db": path, "schema_version": 1,
// "version": "v0.1.0"}.
package viewer
