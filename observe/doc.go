// Package observe is loom's observability kit: it sets up OpenTelemetry
// tracing and metrics for programs that embed loom, and serves the trace
// viewer behind `loom observe`.
//
// # Setup
//
// [Setup] builds a tracer provider and a meter provider that export to one
// of: the SQLite trace store (package [github.com/loomwork/loom/observe/store],
// the default), stdout, or OTLP over HTTP (configured by the standard
// OTEL_EXPORTER_OTLP_* variables). Nothing is global: hand the providers to
// loom on the context, and call the returned shutdown function before the
// program exits so the last spans are written.
//
//	tel, shutdown, err := observe.Setup(ctx, observe.Config{})
//	if err != nil { … }
//	defer shutdown(context.WithoutCancel(ctx))
//	ctx = agent.WithTracerProvider(ctx, tel.TracerProvider)
//
// For the store, Setup's tracer provider is loom's own [TracerProvider]:
// its spans are small records kept with the rest of their trace, and when
// a run's root span ends the whole run goes to the store as one row, not
// through the OpenTelemetry SDK. With stdout or OTLP (or a [Config.Sampler]
// or [Config.SpanProcessors]) it is the SDK's, and spans reach the
// exporter through a [BatchProcessor]. Either way, ending a span appends
// it to a buffer, and one goroutine writes full batches, or what is
// pending once a second, so a span costs its producer no goroutine
// wake-up. [Config.Batch] (or the standard OTEL_BSP_* variables) tunes it.
//
// The library itself records nothing unless a program does this: with no
// provider on the context, loom uses otel's global providers, which are
// no-ops until someone sets them.
//
// The spans and attributes loom records follow the OpenTelemetry GenAI
// semantic conventions: "invoke_agent {agent}", "chat {model}" (kind
// CLIENT), "execute_tool {tool}" and "sandbox.run" spans carrying
// gen_ai.operation.name, gen_ai.agent.name, gen_ai.provider.name,
// gen_ai.request.model, gen_ai.usage.input_tokens and output_tokens,
// gen_ai.tool.name and gen_ai.tool.call.id, loom.cost.usd, and, when
// content capture is on, the prompts, answers, tool arguments and results,
// and the sandboxed code with its result and console lines.
//
// # Viewer
//
// [NewHandler] serves the viewer over a store: a list of runs (outermost
// agent, input preview, status, start, duration, tokens, cost; filters by
// status and agent; paging; live refresh) and, per run, the span tree as a
// timeline with the details of the selected span. [Serve] runs it as an
// HTTP server on 127.0.0.1:7893, as `loom observe` does. The pages are
// embedded in the binary and load nothing from the network. Requests whose
// Host header is not a loopback name are refused (see [WithAllowedHosts]).
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
//
// # Logging
//
// Package [github.com/loomwork/loom/observe/logx] adds a TRACE level below
// DEBUG to log/slog and a handler that stamps records with the trace and
// span ids of the active span.
package observe
