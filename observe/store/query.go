package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Limits of [Query.Limit].
const (
	DefaultLimit = 50
	MaxLimit     = 500
)

// Statuses of a trace summary.
const (
	StatusOK      = "ok"
	StatusError   = "error"
	StatusLimit   = "limit"
	StatusRunning = "running"
	// StatusWaiting is a run paused for an answer (an approval): it has
	// neither succeeded nor failed, and its Error says what it waits for.
	StatusWaiting = "waiting"
	// StatusContinued is a part of a run that waited or whose process
	// died, and that another process resumed (see [TraceDetail.Parts]):
	// the run's outcome is its last part's.
	StatusContinued = "continued"
	// StatusNoAnswer is a run that answered although it ran code and no
	// snippet computed a value (every sandbox run failed): its answer was
	// not computed (the loom CLIs exit with 4).
	StatusNoAnswer = "no_answer"
	// StatusEval is an evaluation (package evals) that ran to its end:
	// its [TraceSummary.Eval] scores say how it went, and it is counted
	// in neither the success nor the error rate of agent runs. An
	// evaluation that failed or was stopped is "error".
	StatusEval = "eval"
)

// EvalSummary is what an evaluation's trace records of its run: the data
// set, the solver and the scores. Its samples are the trace's spans with
// a loom.eval.problem attribute (and loom.eval.class, loom.eval.score).
type EvalSummary struct {
	Dataset string `json:"dataset"`
	Model   string `json:"model,omitempty"`
	Solver  string `json:"solver,omitempty"`
	// Problems run, and the samples asked of each.
	Problems          int64 `json:"problems"`
	SamplesPerProblem int64 `json:"samples_per_problem"`
	// Samples checked, and how many of them passed.
	Samples int64 `json:"samples"`
	Passed  int64 `json:"passed"`
	// PassAt maps k ("1", "10") to pass@k.
	PassAt map[string]float64 `json:"pass_at,omitempty"`
}

// TraceSummary is the list view of one trace.
type TraceSummary struct {
	TraceID string `json:"trace_id"`
	// Agent is the name of the trace's outermost agent (its earliest
	// invoke_agent span); RootName is the root span's name.
	Agent    string `json:"agent"`
	RootName string `json:"root_name,omitempty"`
	// Input and Output preview the outermost agent's captured input and
	// output; empty when content capture was off.
	Input  string `json:"input_preview"`
	Output string `json:"output_preview"`
	// Status is "ok", "error", "limit" or, until the root span is stored,
	// "running" (also what a run whose process died mid-way stays at).
	Status     string    `json:"status"`
	Error      string    `json:"error,omitempty"`
	Start      time.Time `json:"start_time"`
	End        time.Time `json:"end_time"`
	DurationMS float64   `json:"duration_ms"`
	Spans      int64     `json:"spans"`
	Errors     int64     `json:"errors"`
	ModelCalls int64     `json:"model_calls"`
	ToolCalls  int64     `json:"tool_calls"`
	// Tokens over every model call of the trace.
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	CachedTokens int64 `json:"cached_tokens"`
	TotalTokens  int64 `json:"total_tokens"`
	// CostUSD is the estimated cost; CostComplete is false when some model
	// call had no known price, so CostUSD is a lower bound.
	CostUSD      float64 `json:"cost_usd"`
	CostComplete bool    `json:"cost_complete"`
	// Seq is the write sequence number of the trace's last change; see
	// [Query.Since].
	Seq int64 `json:"seq"`
	// RunID is the loom run the trace records (its outermost agent's
	// loom.run.id). A run that paused or crashed and was resumed in
	// another process has a trace per process, all with its RunID;
	// Resumed marks the traces of such continuations.
	RunID   string `json:"run_id,omitempty"`
	Resumed bool   `json:"resumed,omitempty"`
	// Eval is set when the trace records an evaluation (status "eval", or
	// "error" when it failed): its data set and scores.
	Eval *EvalSummary `json:"eval,omitempty"`
}

// Query selects traces for [Store.Traces].
type Query struct {
	// Status keeps traces with this status ("ok", "error", "limit",
	// "running"); empty keeps all.
	Status string
	// Agent keeps traces whose outermost agent has this name; empty keeps all.
	Agent string
	// Limit is the page size: default [DefaultLimit], at most [MaxLimit].
	Limit int
	// Before is a cursor from [Page.Next]: the page starts after it.
	Before string
	// Since, when positive, returns only traces written after write sequence
	// Since (from [Page.Seq]), oldest change first, ignoring Before. A viewer
	// polls with it to refresh its list.
	Since int64
}

// Page is one page of trace summaries.
type Page struct {
	Traces []TraceSummary `json:"traces"`
	// Next is the cursor of the following (older) page; empty on the last.
	Next string `json:"next,omitempty"`
	// Seq is the write sequence this page is current to: pass it as
	// [Query.Since] to get what changed after it.
	Seq int64 `json:"seq"`
}

// ErrBadQuery is wrapped by errors about invalid [Query] values.
var ErrBadQuery = errors.New("store: bad query")

const summaryColumns = `trace_id, agent, root_name, input_preview, output_preview, status, error_message,
	start_ns, end_ns, span_count, error_count, chat_count, tool_count,
	input_tokens, output_tokens, cached_tokens, cost, cost_unknown,
	agent_input_tokens, agent_output_tokens, agent_cost, updated_seq, run_id, resumed, eval`

func scanSummary(sc interface{ Scan(...any) error }) (TraceSummary, error) {
	var (
		t                 TraceSummary
		startNS, endNS    int64
		costUnknown       int64
		agentIn, agentOut sql.NullInt64
		agentCost         sql.NullFloat64
		eval              string
	)
	err := sc.Scan(&t.TraceID, &t.Agent, &t.RootName, &t.Input, &t.Output, &t.Status, &t.Error,
		&startNS, &endNS, &t.Spans, &t.Errors, &t.ModelCalls, &t.ToolCalls,
		&t.InputTokens, &t.OutputTokens, &t.CachedTokens, &t.CostUSD, &costUnknown,
		&agentIn, &agentOut, &agentCost, &t.Seq, &t.RunID, &t.Resumed, &eval)
	if err != nil {
		return t, err
	}
	if eval != "" {
		t.Eval = new(EvalSummary)
		if err := json.Unmarshal([]byte(eval), t.Eval); err != nil {
			return t, fmt.Errorf("corrupt eval summary of trace %s: %w", t.TraceID, err)
		}
	}
	if t.ModelCalls == 0 {
		// No model spans stored: fall back to the agent's own totals.
		t.InputTokens, t.OutputTokens = agentIn.Int64, agentOut.Int64
		if agentCost.Valid {
			t.CostUSD = agentCost.Float64
		}
	}
	t.TotalTokens = t.InputTokens + t.OutputTokens
	t.CostComplete = costUnknown == 0
	t.Start, t.End = time.Unix(0, startNS).UTC(), time.Unix(0, endNS).UTC()
	t.DurationMS = float64(endNS-startNS) / 1e6
	return t, nil
}

// Traces returns a page of trace summaries, newest first. It first stores
// what short-lived processes have spooled since (see [Spool]), so a
// viewer that lists runs shows theirs.
func (s *Store) Traces(ctx context.Context, q Query) (Page, error) {
	if s.isClosed() {
		return Page{}, ErrClosed
	}
	if err := s.ingestSpool(ctx); err != nil {
		return Page{}, err
	}
	limit := q.Limit
	switch {
	case limit <= 0:
		limit = DefaultLimit
	case limit > MaxLimit:
		limit = MaxLimit
	}
	switch q.Status {
	case "", StatusOK, StatusError, StatusLimit, StatusRunning, StatusWaiting, StatusContinued, StatusNoAnswer, StatusEval:
	default:
		return Page{}, fmt.Errorf("%w: status %q: use ok, no_answer, error, limit, waiting, continued, eval or running", ErrBadQuery, q.Status)
	}
	var where []string
	var args []any
	if q.Status != "" {
		where, args = append(where, "status = ?"), append(args, q.Status)
	}
	if q.Agent != "" {
		where, args = append(where, "agent = ?"), append(args, q.Agent)
	}
	order := "start_ns DESC, trace_id DESC"
	if q.Since > 0 {
		where, args = append(where, "updated_seq > ?"), append(args, q.Since)
		order = "updated_seq"
	} else if q.Before != "" {
		ns, id, err := parseCursor(q.Before)
		if err != nil {
			return Page{}, err
		}
		where, args = append(where, "(start_ns < ? OR (start_ns = ? AND trace_id < ?))"), append(args, ns, ns, id)
	}
	stmt := "SELECT " + summaryColumns + " FROM traces"
	if len(where) > 0 {
		stmt += " WHERE " + strings.Join(where, " AND ")
	}
	stmt += " ORDER BY " + order + " LIMIT ?"
	args = append(args, limit+1)

	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return Page{}, fmt.Errorf("store: begin read: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	var page Page
	if err := tx.QueryRowContext(ctx, `SELECT value FROM counters WHERE name = 'seq'`).Scan(&page.Seq); err != nil {
		return Page{}, fmt.Errorf("store: read write sequence: %w", err)
	}
	rows, err := tx.QueryContext(ctx, stmt, args...)
	if err != nil {
		return Page{}, fmt.Errorf("store: list traces: %w", err)
	}
	defer rows.Close()
	page.Traces = make([]TraceSummary, 0, min(limit, 64))
	for rows.Next() {
		t, err := scanSummary(rows)
		if err != nil {
			return Page{}, fmt.Errorf("store: read trace summary: %w", err)
		}
		page.Traces = append(page.Traces, t)
	}
	if err := rows.Err(); err != nil {
		return Page{}, fmt.Errorf("store: list traces: %w", err)
	}
	if len(page.Traces) > limit {
		page.Traces = page.Traces[:limit]
		last := page.Traces[limit-1]
		if q.Since > 0 {
			// More changes wait: resume after the last one returned.
			page.Seq = last.Seq
		} else {
			page.Next = cursor(last)
		}
	}
	return page, nil
}

func cursor(t TraceSummary) string {
	return strconv.FormatInt(t.Start.UnixNano(), 10) + "." + t.TraceID
}

func parseCursor(c string) (int64, string, error) {
	ns, id, ok := strings.Cut(c, ".")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || id == "" {
		return 0, "", fmt.Errorf("%w: cursor %q is not one this store returned: take it from a page's next", ErrBadQuery, c)
	}
	return n, id, nil
}

// TraceDetail is one trace with all its spans.
type TraceDetail struct {
	Summary TraceSummary `json:"summary"`
	// Spans are ordered by start time.
	Spans []Span `json:"spans"`
	// Parts are the traces of the same loom run, this one included, oldest
	// first, when the run went on in other processes (it paused for an
	// answer or crashed, and was resumed); empty otherwise.
	Parts []TraceSummary `json:"parts,omitempty"`
}

// Trace returns the trace with id (32 hex digits) and its spans, or an error
// wrapping [ErrNotFound]. Like [Store.Traces] it first stores what was
// spooled since, so a viewer that follows a running one-shot run sees its
// spans as they are spooled.
func (s *Store) Trace(ctx context.Context, id string) (TraceDetail, error) {
	if s.isClosed() {
		return TraceDetail{}, ErrClosed
	}
	if err := s.ingestSpool(ctx); err != nil {
		return TraceDetail{}, err
	}
	id = strings.ToLower(id)
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return TraceDetail{}, fmt.Errorf("store: begin read: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	var d TraceDetail
	d.Summary, err = scanSummary(tx.QueryRowContext(ctx, "SELECT "+summaryColumns+" FROM traces WHERE trace_id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return TraceDetail{}, fmt.Errorf("%w: %s (it may have been pruned)", ErrNotFound, id)
	}
	if err != nil {
		return TraceDetail{}, fmt.Errorf("store: read trace %s: %w", id, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT span_id, parent_id, name, kind, start_ns, end_ns, status_code,
		status_message, attributes, events, scope FROM spans WHERE trace_id = ? ORDER BY start_ns, rowid`, id)
	if err != nil {
		return TraceDetail{}, fmt.Errorf("store: read spans of trace %s: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		sp := Span{TraceID: id}
		var startNS, endNS int64
		var attrs, events []byte
		if err := rows.Scan(&sp.SpanID, &sp.ParentSpanID, &sp.Name, &sp.Kind, &startNS, &endNS, &sp.Status,
			&sp.StatusMessage, &attrs, &events, &sp.Scope); err != nil {
			return TraceDetail{}, fmt.Errorf("store: read span of trace %s: %w", id, err)
		}
		sp.Start, sp.End = time.Unix(0, startNS).UTC(), time.Unix(0, endNS).UTC()
		if err := decodeJSON(attrs, &sp.Attributes); err != nil {
			return TraceDetail{}, fmt.Errorf("store: span %s has corrupt attributes: %w", sp.SpanID, err)
		}
		if sp.Events, err = decodeEvents(events); err != nil {
			return TraceDetail{}, fmt.Errorf("store: span %s has corrupt events: %w", sp.SpanID, err)
		}
		d.Spans = append(d.Spans, sp)
	}
	if err := rows.Err(); err != nil {
		return TraceDetail{}, fmt.Errorf("store: read spans of trace %s: %w", id, err)
	}
	if d.Spans, err = readParts(ctx, tx, id, d.Spans); err != nil {
		return TraceDetail{}, err
	}
	if d.Summary.RunID != "" {
		if d.Parts, err = runParts(ctx, tx, d.Summary.RunID); err != nil {
			return TraceDetail{}, err
		}
	}
	return d, nil
}

// maxParts bounds the parts of one run a trace's detail lists.
const maxParts = 100

// runParts returns the traces of run runID, oldest first, or nil when the
// run has only one.
func runParts(ctx context.Context, tx *sql.Tx, runID string) ([]TraceSummary, error) {
	rows, err := tx.QueryContext(ctx, "SELECT "+summaryColumns+" FROM traces WHERE run_id = ? ORDER BY start_ns, trace_id LIMIT ?", runID, maxParts)
	if err != nil {
		return nil, fmt.Errorf("store: read the traces of run %s: %w", runID, err)
	}
	defer rows.Close()
	var parts []TraceSummary
	for rows.Next() {
		t, err := scanSummary(rows)
		if err != nil {
			return nil, fmt.Errorf("store: read the traces of run %s: %w", runID, err)
		}
		parts = append(parts, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read the traces of run %s: %w", runID, err)
	}
	if len(parts) < 2 {
		return nil, nil
	}
	return parts, nil
}

// AgentCount is an agent name with the number of stored traces it is the
// outermost agent of.
type AgentCount struct {
	Name   string `json:"name"`
	Traces int64  `json:"traces"`
}

// Agents returns the distinct outermost agents of stored traces, by name.
func (s *Store) Agents(ctx context.Context) ([]AgentCount, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	rows, err := s.read.QueryContext(ctx, `SELECT agent, count(*) FROM traces WHERE agent != '' GROUP BY agent ORDER BY agent`)
	if err != nil {
		return nil, fmt.Errorf("store: list agents: %w", err)
	}
	defer rows.Close()
	out := []AgentCount{}
	for rows.Next() {
		var a AgentCount
		if err := rows.Scan(&a.Name, &a.Traces); err != nil {
			return nil, fmt.Errorf("store: list agents: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Stats aggregates the traces a [Query] selects (Status and Agent; paging
// fields are ignored): the figures the viewer shows above its list.
type Stats struct {
	Traces  int64 `json:"traces"`
	OK      int64 `json:"ok"`
	Errors  int64 `json:"errors"`
	Limits  int64 `json:"limits"`
	Running int64 `json:"running"`
	// Waiting counts runs paused for an answer: not finished, so in
	// neither the success nor the error rate.
	Waiting int64 `json:"waiting"`
	// Continued counts the earlier parts of resumed runs, counted in
	// neither rate: their run's last part is.
	Continued int64 `json:"continued"`
	// NoAnswer counts runs that answered with no computed value: finished,
	// and not a success.
	NoAnswer int64 `json:"no_answer"`
	// Evals counts evaluations that ran to their end: not agent runs, so
	// in neither rate.
	Evals int64 `json:"evals"`
	// ErrorRate is (Errors+Limits+NoAnswer) over the finished traces, 0
	// when none.
	ErrorRate    float64 `json:"error_rate"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	ModelCalls   int64   `json:"model_calls"`
	ToolCalls    int64   `json:"tool_calls"`
	// AvgDurationMS is the mean duration of the finished agent runs.
	AvgDurationMS float64 `json:"avg_duration_ms"`
	// Since is the start of the oldest trace counted.
	Since time.Time `json:"since"`
}

// Stats returns aggregates over the traces q selects.
func (s *Store) Stats(ctx context.Context, q Query) (Stats, error) {
	if s.isClosed() {
		return Stats{}, ErrClosed
	}
	var where []string
	var args []any
	switch q.Status {
	case "":
	case StatusOK, StatusError, StatusLimit, StatusRunning, StatusWaiting, StatusContinued, StatusNoAnswer, StatusEval:
		where, args = append(where, "status = ?"), append(args, q.Status)
	default:
		return Stats{}, fmt.Errorf("%w: status %q: use ok, no_answer, error, limit, waiting, continued, eval or running", ErrBadQuery, q.Status)
	}
	if q.Agent != "" {
		where, args = append(where, "agent = ?"), append(args, q.Agent)
	}
	stmt := `SELECT count(*),
		coalesce(sum(status = 'ok'), 0), coalesce(sum(status = 'error'), 0),
		coalesce(sum(status = 'limit'), 0), coalesce(sum(status = 'running'), 0),
		coalesce(sum(status = 'waiting'), 0), coalesce(sum(status = 'continued'), 0), coalesce(sum(status = 'no_answer'), 0),
		coalesce(sum(status = 'eval'), 0),
		coalesce(sum(CASE WHEN chat_count > 0 THEN input_tokens ELSE coalesce(agent_input_tokens, 0) END), 0),
		coalesce(sum(CASE WHEN chat_count > 0 THEN output_tokens ELSE coalesce(agent_output_tokens, 0) END), 0),
		coalesce(sum(CASE WHEN chat_count > 0 THEN cost ELSE coalesce(agent_cost, 0) END), 0),
		coalesce(sum(chat_count), 0), coalesce(sum(tool_count), 0),
		coalesce(avg(CASE WHEN status NOT IN ('running', 'waiting', 'continued', 'eval') THEN end_ns - start_ns END), 0),
		coalesce(min(start_ns), 0)
		FROM traces`
	if len(where) > 0 {
		stmt += " WHERE " + strings.Join(where, " AND ")
	}
	var st Stats
	var avgNS float64
	var sinceNS int64
	err := s.read.QueryRowContext(ctx, stmt, args...).Scan(&st.Traces, &st.OK, &st.Errors, &st.Limits, &st.Running, &st.Waiting, &st.Continued, &st.NoAnswer, &st.Evals,
		&st.InputTokens, &st.OutputTokens, &st.CostUSD, &st.ModelCalls, &st.ToolCalls, &avgNS, &sinceNS)
	if err != nil {
		return Stats{}, fmt.Errorf("store: aggregate traces: %w", err)
	}
	if finished := st.Traces - st.Running - st.Waiting - st.Continued - st.Evals; finished > 0 {
		st.ErrorRate = float64(st.Errors+st.Limits+st.NoAnswer) / float64(finished)
	}
	st.AvgDurationMS = avgNS / 1e6
	if st.Traces > 0 {
		st.Since = time.Unix(0, sinceNS).UTC()
	}
	return st, nil
}
