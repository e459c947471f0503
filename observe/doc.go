// Package observe is loom's observability kit: it sets up OpenTelemetry
// tracing and metrics for programs that embed loom, with loom's own tracer
// provider for the trace store.
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
//	ctx = agentrt.WithTracerProvider(ctx, tel.TracerProvider)
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
// A program that runs once and exits sets [Config.ShortLived]: its runs
// then go to a spool file beside the store's database
// ([github.com/loomwork/loom/observe/store.Spool]) instead of into it,
// which saves it the database's open, write and checkpoint; the viewer,
// and the next program that opens the database, store them.
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
// Package [github.com/loomwork/loom/observe/viewer] serves the trace
// viewer behind `loom observe` over the store, with its JSON API.
//
// # Logging
//
// Package [github.com/loomwork/loom/observe/logx] adds a TRACE level below
// DEBUG to log/slog and a handler that stamps records with the trace and
// span ids of the active span.
package observe
