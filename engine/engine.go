package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/loomwork/loom/agent"

	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/internal/config"
	"github.com/loomwork/loom/internal/flow"
	"github.com/loomwork/loom/model"
	"go.opentelemetry.io/otel/trace"
)

// LevelTrace is the slog level below DEBUG at which the engine logs every
// event of a run.
const LevelTrace = slog.Level(-8)

// Engine runs agents with what every run of a program shares: a default
// model, limits, hooks, a tracer provider, metrics and a logger. It keeps
// usage totals over all its runs. An Engine is safe for concurrent use; its
// runs are independent (each has its own limits budget).
type Engine struct {
	model    model.Model
	limits   agent.Limits
	hooks    []agent.Hooks
	tp       trace.TracerProvider
	metrics  *agentrt.Metrics
	capture  *bool
	log      *slog.Logger
	store    checkpoint.Store
	sessions checkpoint.SessionStore
	labels   map[string]string // on every checkpoint (Config.Labels)
	policy   CheckpointPolicy
	cfgErr   error // a Config that breaks the zero/negative rule
	totals   totals
}

// Config is what every run of an [Engine] shares. The zero Config is an
// engine with no default model, no limits, no checkpoints and no logging.
type Config struct {
	// Model is the default model, used by AI agents that have none of
	// their own.
	Model model.Model
	// Limits bound each run: max agent invocations, max tokens and a
	// timeout (see [agent.Limits]; zero means no limit, a negative value
	// fails every run with [agent.ErrInvalidConfig]). A breach fails the
	// run with an [*agent.LimitError].
	Limits agent.Limits
	// Hooks fire, in order, for every run and tool call beneath the
	// engine's runs.
	Hooks []agent.Hooks
	// TracerProvider records the runs' spans; when nil, runs use the
	// provider on the run's ctx, then otel's global one.
	TracerProvider trace.TracerProvider
	// Metrics records loom's metrics, including loom.workflow.outcomes
	// (see [agentrt.NewMetrics]).
	Metrics *agentrt.Metrics
	// ContentCapture records message content on spans ([CaptureOn]) or
	// not ([CaptureOff]); the zero value leaves it to the environment
	// (see [agentrt.CaptureContentEnv]).
	ContentCapture Capture
	// Logger logs each run's start and end at DEBUG and every event at
	// [LevelTrace]. When nil the engine logs nothing.
	Logger *slog.Logger
	// Checkpoints saves every run of the engine: a checkpoint when it
	// starts, after every step (a model call, a nested run's end, a
	// question) with the events since the previous one, and when it ends
	// or waits for answers. A run that waits, or whose process died, is
	// continued with [Engine.Resume].
	Checkpoints checkpoint.Store
	// Labels go on every checkpoint of the engine's runs (in
	// [checkpoint.Checkpoint.Meta], beside "agent" and "status"), so that
	// runs can be found with [checkpoint.RunFilter]: the loom CLI and
	// playground label runs with the file they came from. A resumed run
	// keeps the labels it started with. The keys "agent", "status" and
	// [MetaSession] are loom's own and are ignored here.
	Labels map[string]string
	// Sessions keeps the engine's sessions opened by id
	// ([Engine.OpenSession]).
	Sessions checkpoint.SessionStore
	// CheckpointPolicy says when runs write their checkpoints; the zero
	// value saves every step ([CheckpointEveryStep]).
	CheckpointPolicy CheckpointPolicy
}

// Capture says whether spans record message content.
type Capture int

const (
	// CaptureFromEnv leaves content capture to the environment
	// (see [agentrt.CaptureContentEnv]); it is the zero value.
	CaptureFromEnv Capture = iota
	// CaptureOn records message content on spans.
	CaptureOn
	// CaptureOff never records message content.
	CaptureOff
)

// CaptureIf is [CaptureOn] when on is true, else [CaptureOff].
func CaptureIf(on bool) Capture {
	if on {
		return CaptureOn
	}
	return CaptureOff
}

// New returns an engine built from cfg. A Config that breaks the
// zero/negative rule (see the package doc) does not panic: every run of
// the engine then fails at once with an error wrapping
// [agent.ErrInvalidConfig] that names the field.
func New(cfg Config) *Engine {
	e := &Engine{model: cfg.Model, limits: cfg.Limits, tp: cfg.TracerProvider, metrics: cfg.Metrics, log: cfg.Logger,
		store: cfg.Checkpoints, sessions: cfg.Sessions, hooks: slices.Clone(cfg.Hooks)}
	switch cfg.ContentCapture {
	case CaptureFromEnv:
	case CaptureOn, CaptureOff:
		on := cfg.ContentCapture == CaptureOn
		e.capture = &on
	default:
		e.cfgErr = fmt.Errorf("%w: engine: engine.Config.ContentCapture is %d: use engine.CaptureFromEnv, CaptureOn or CaptureOff", agent.ErrInvalidConfig, cfg.ContentCapture)
	}
	switch cfg.CheckpointPolicy {
	case CheckpointEveryStep, CheckpointAtInterrupts:
		e.policy = cfg.CheckpointPolicy
	default:
		if e.cfgErr == nil {
			e.cfgErr = fmt.Errorf("%w: engine: engine.Config.CheckpointPolicy is %d: use engine.CheckpointEveryStep or CheckpointAtInterrupts", agent.ErrInvalidConfig, cfg.CheckpointPolicy)
		}
	}
	if e.cfgErr == nil {
		e.cfgErr = cfg.check()
	}
	if cfg.Labels != nil {
		e.labels = map[string]string{}
		for k, v := range cfg.Labels {
			if k != "agent" && k != "status" && k != MetaSession {
				e.labels[k] = v
			}
		}
	}
	return e
}

// Model returns the default model, or nil.
func (e *Engine) Model() model.Model { return e.model }

// Limits returns the limits applied to each run.
func (e *Engine) Limits() agent.Limits { return e.limits }

// Result is a finished run: its output and what it cost.
type Result struct {
	// Output is the agent's output.
	Output json.RawMessage
	// Usage is the tokens of every model call of the run, nested runs
	// included.
	Usage model.Usage
	// Cost is the estimated cost of those calls in US dollars, from the
	// price table (agent.Env.Prices, or package pricing's); calls of
	// models without a price count as 0.
	Cost float64
	// Invocations is the number of agent runs, the root included.
	Invocations int64
	// Duration is the run's wall time.
	Duration time.Duration
	// Messages is what the root run added to the conversation (for an AI
	// agent: the input, tool calls and results, the answer).
	Messages []model.Message
	// FinishReason is why the model stopped: the root run's last answer
	// when the root is an AI agent, else the last nested AI run's, except
	// that model.FinishLength (an answer cut at the output token limit) is
	// kept once any run reported it. Check it with FinishReason.Err.
	FinishReason model.FinishReason
}

// Text returns the output's "message" field when it is a string, else the
// output's JSON.
func (r *Result) Text() string { return flow.TextOf(r.Output) }

// Decode decodes the output into v.
func (r *Result) Decode(v any) error {
	if err := json.Unmarshal(r.Output, v); err != nil {
		return fmt.Errorf("engine: decode output into %T: %w", v, err)
	}
	return nil
}

// Stats are an engine's totals over all its runs.
type Stats struct {
	Runs        int64       // runs started
	Failed      int64       // runs that ended with an error
	Invocations int64       // agent runs, nested ones included
	Usage       model.Usage // tokens of every model call (replayed ones of a resumed run not again)
	Cost        float64     // estimated US dollars of those calls
}

type totals struct {
	runs, failed, invocations atomic.Int64
	in, out, cached           atomic.Int64
	nanoUSD                   atomic.Int64 // cost, in billionths of a dollar
}

func (t *totals) addUsage(u model.Usage) {
	t.in.Add(u.InputTokens)
	t.out.Add(u.OutputTokens)
	t.cached.Add(u.CachedInputTokens)
}

// Stats returns the engine's totals so far.
func (e *Engine) Stats() Stats {
	return Stats{
		Runs:        e.totals.runs.Load(),
		Failed:      e.totals.failed.Load(),
		Invocations: e.totals.invocations.Load(),
		Usage: model.Usage{
			InputTokens:       e.totals.in.Load(),
			OutputTokens:      e.totals.out.Load(),
			CachedInputTokens: e.totals.cached.Load(),
		},
		Cost: float64(e.totals.nanoUSD.Load()) / 1e9,
	}
}

// Usage returns the tokens of every model call of every run so far.
func (e *Engine) Usage() model.Usage { return e.Stats().Usage }

// Run runs a on input and yields its events, as [agent.Agent.Run] does,
// under the engine's model, limits, hooks, tracing and logging. input is
// what [agentrt.EncodeInput] accepts: a string becomes {"message": s}. Every
// stream ends with exactly one EventRunEnd of the root run: a nil agent or
// an input that cannot be encoded is a run that fails at once.
func (e *Engine) Run(ctx context.Context, a agent.Agent, input any) iter.Seq2[agent.Event, error] {
	return e.run(ctx, a, input, nil, nil, nil)
}

// Invoke runs a on input and returns its output with the run's usage.
func (e *Engine) Invoke(ctx context.Context, a agent.Agent, input any) (*Result, error) {
	var res Result
	_, err := collect(e.run(ctx, a, input, &res, nil, nil))
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// InvokeAs runs a on input with e and decodes its output into a T.
func InvokeAs[T any](ctx context.Context, e *Engine, a agent.Agent, input any) (T, error) {
	var v T
	res, err := e.Invoke(ctx, a, input)
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(res.Output, &v); err != nil {
		return v, fmt.Errorf("engine: agent %s: decode output into %T: %w", a.Info().Name, v, err)
	}
	return v, nil
}

// collect drains a stream, returning the first error.
func collect(stream iter.Seq2[agent.Event, error]) (int, error) {
	n := 0
	for _, err := range stream {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// run is Run, filling res (when not nil) as the run ends, and saving the
// run through rc (a new recorder when nil and the engine has a store). A
// session hands the root run the conversation so far in hist (nil: none,
// or the history ctx's Env carries).
func (e *Engine) run(ctx context.Context, a agent.Agent, input any, res *Result, rc *recorder, hist []model.Message) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		if a == nil {
			failedRun(ctx, nil, fmt.Errorf("%w: engine: the agent to run is nil", agent.ErrInvalidConfig), yield)
			return
		}
		if e.cfgErr != nil {
			failedRun(ctx, a, e.cfgErr, yield)
			return
		}
		raw, err := agentrt.EncodeInput(input)
		if err != nil {
			failedRun(ctx, a, fmt.Errorf("engine: run %s: %w", a.Info().Name, err), yield)
			return
		}
		start := agentrt.Now(ctx)
		ctx, cancel := e.prepare(ctx)
		defer cancel()
		if rc == nil && e.store != nil {
			rc = &recorder{store: e.store, agent: a.Info().Name, input: raw, meta: e.labels, lazy: e.policy == CheckpointAtInterrupts}
		}
		var saveErr error
		st := &runState{engine: e, resumed: rc != nil && rc.head > 0}
		ctx = agent.WithEnv(ctx, agent.Env{DefaultModel: e.model, Hooks: st.hooks(), History: hist})
		e.totals.runs.Add(1)
		log := e.log
		var root string
		var finish model.FinishReason // see Result.FinishReason
		if rc != nil {
			finish = rc.finish // a resumed run may skip the events that set it
		}
		var end agent.Event
		var runErr error
		stopped := false
		for ev, err := range a.Run(ctx, raw) {
			if ev.Kind == agent.EventRunStart && root == "" {
				root = ev.RunID
				if log != nil {
					log.DebugContext(st.logContext(ctx), "run start", "agent", a.Info().Name, "run", root, "input", string(raw))
				}
			}
			if rc != nil && saveErr == nil {
				if serr := rc.add(ctx, ev); serr != nil {
					saveErr = serr
					cancel()
				}
			}
			if ev.Kind == agent.EventRunEnd && ev.RunID == root {
				if saveErr != nil {
					ev.Err, err = saveErr, saveErr
				}
				end = ev
			}
			if ev.Kind == agent.EventRunEnd && ev.FinishReason != "" && finish != model.FinishLength {
				finish = ev.FinishReason
			}
			if log != nil && log.Enabled(ctx, LevelTrace) {
				logEvent(st.logContext(ctx), log, ev)
			}
			if err != nil {
				runErr = err
			}
			if !yield(ev, err) {
				stopped = true
				break
			}
		}
		usage := agentrt.UsageFrom(ctx)
		// A resumed run replays the model calls it made before; the
		// engine's totals count only the calls made now.
		replayed, replayedUSD := agentrt.ReplayedFrom(ctx)
		e.totals.addUsage(usage.Sub(replayed))
		e.totals.nanoUSD.Add(int64(math.Round(max(end.Cost-replayedUSD, 0) * 1e9)))
		e.totals.invocations.Add(st.invocations.Load())
		if runErr != nil {
			e.totals.failed.Add(1)
		}
		if res != nil {
			*res = Result{Output: end.Output, Usage: usage, Cost: end.Cost, Invocations: st.invocations.Load(), Duration: agentrt.Since(ctx, start), Messages: end.Messages, FinishReason: cmp.Or(end.FinishReason, finish)}
		}
		if log != nil {
			attrs := []any{"agent", a.Info().Name, "run", root, "usage", usage.String(), "cost_usd", end.Cost, "invocations", st.invocations.Load(), "duration", agentrt.Since(ctx, start)}
			switch {
			case stopped:
				log.DebugContext(st.logContext(ctx), "run stopped by the caller", attrs...)
			case runErr != nil:
				log.DebugContext(st.logContext(ctx), "run failed", append(attrs, "err", runErr)...)
			default:
				log.DebugContext(st.logContext(ctx), "run end", attrs...)
			}
		}
	}
}

// prepare puts the engine's settings on ctx, under a fresh limits budget;
// run puts its default model in the Env it sets for the run.
func (e *Engine) prepare(ctx context.Context) (context.Context, context.CancelFunc) {
	if e.tp != nil {
		ctx = agentrt.WithTracerProvider(ctx, e.tp)
	}
	if e.metrics != nil {
		ctx = agentrt.WithMetrics(ctx, e.metrics)
	}
	if e.capture != nil {
		ctx = agentrt.WithContentCapture(ctx, *e.capture)
	}
	for _, h := range e.hooks {
		ctx = agent.WithEnv(ctx, agent.Env{Hooks: h})
	}
	return agent.WithLimits(ctx, e.limits)
}

// logEvent logs one event at LevelTrace.
func logEvent(ctx context.Context, log *slog.Logger, ev agent.Event) {
	attrs := []slog.Attr{slog.String("kind", ev.Kind.String()), slog.String("agent", ev.Agent), slog.String("run", ev.RunID)}
	switch ev.Kind {
	case agent.EventRunStart:
		attrs = append(attrs, slog.String("parent", ev.ParentID), slog.String("input", string(ev.Input)))
	case agent.EventTextDelta:
		attrs = append(attrs, slog.String("text", ev.Text))
	case agent.EventToolCall:
		attrs = append(attrs, slog.String("tool", ev.ToolCall.Name), slog.String("call", ev.ToolCall.ID), slog.String("arguments", string(ev.ToolCall.Arguments)))
	case agent.EventToolResult:
		attrs = append(attrs, slog.String("tool", ev.ToolResult.Name), slog.String("call", ev.ToolResult.CallID), slog.Bool("is_error", ev.ToolResult.IsError), slog.String("content", string(ev.ToolResult.Content)))
	case agent.EventUsage:
		attrs = append(attrs, slog.String("usage", ev.Usage.String()))
	case agent.EventRunEnd:
		attrs = append(attrs, slog.String("output", string(ev.Output)), slog.String("usage", ev.Usage.String()))
		if ev.Err != nil {
			attrs = append(attrs, slog.String("err", ev.Err.Error()))
		}
	}
	log.LogAttrs(ctx, LevelTrace, "event", attrs...)
}

// check applies the zero/negative rule to c.
func (c Config) check() error {
	if err := config.Check("engine.Config", c); err != nil {
		return fmt.Errorf("%w: engine: %w", agent.ErrInvalidConfig, err)
	}
	return nil
}
