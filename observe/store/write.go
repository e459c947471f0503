package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// insertRows is how many spans one multi-row INSERT writes: one statement
// for many rows saves most of the per-statement cost of database/sql and
// SQLite's virtual machine.
const insertRows = 32

// insertSpanSQL inserts one span; insertSpansSQL inserts insertRows spans.
var (
	insertSpanSQL  = insertSQL(1)
	insertSpansSQL = insertSQL(insertRows)
)

func insertSQL(rows int) string {
	return valuesSQL(`INSERT INTO spans
	(trace_id, span_id, parent_id, name, kind, start_ns, end_ns, status_code, status_message, attributes, events, scope)
	`, 12, rows, " ON CONFLICT (trace_id, span_id) DO NOTHING")
}

// valuesSQL is head, VALUES with rows groups of n placeholders, and tail.
func valuesSQL(head string, n, rows int, tail string) string {
	group := "(?" + strings.Repeat(", ?", n-1) + ")"
	var b strings.Builder
	b.WriteString(head)
	b.WriteString("VALUES ")
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(group)
	}
	b.WriteString(tail)
	return b.String()
}

// The upsert that folds deltas into summary rows. In an UPDATE every
// expression sees the old row, so the agent columns all test the same
// condition: the new top agent span encloses the stored one.
const (
	upsertTraceHead = `INSERT INTO traces (
	trace_id, start_ns, end_ns, status, error_message, root_span_id, root_name,
	agent, agent_span_id, agent_start_ns, agent_end_ns, input_preview, output_preview,
	agent_input_tokens, agent_output_tokens, agent_cost,
	span_count, error_count, chat_count, tool_count,
	input_tokens, output_tokens, cached_tokens, cost, cost_unknown, updated_seq,
	run_id, resumed, code_ok, code_failed, eval)
`
	upsertTraceTail = `ON CONFLICT (trace_id) DO UPDATE SET
	start_ns = min(start_ns, excluded.start_ns),
	end_ns = max(end_ns, excluded.end_ns),
	status = CASE WHEN excluded.root_span_id = '' THEN status
		WHEN excluded.status = 'ok' AND code_ok + excluded.code_ok = 0 AND code_failed + excluded.code_failed > 0 THEN 'no_answer'
		ELSE excluded.status END,
	error_message = CASE
		WHEN excluded.status = 'eval' THEN ''
		WHEN excluded.root_span_id != '' AND excluded.status != 'ok' AND excluded.error_message != '' THEN excluded.error_message
		WHEN error_message = '' THEN excluded.error_message
		ELSE error_message END,
	root_span_id = CASE WHEN excluded.root_span_id != '' THEN excluded.root_span_id ELSE root_span_id END,
	root_name = CASE WHEN excluded.root_span_id != '' THEN excluded.root_name ELSE root_name END,
	eval = CASE WHEN excluded.root_span_id != '' THEN excluded.eval ELSE eval END,
	agent = CASE WHEN ` + newTop + ` THEN excluded.agent ELSE agent END,
	agent_span_id = CASE WHEN ` + newTop + ` THEN excluded.agent_span_id ELSE agent_span_id END,
	agent_start_ns = CASE WHEN ` + newTop + ` THEN excluded.agent_start_ns ELSE agent_start_ns END,
	agent_end_ns = CASE WHEN ` + newTop + ` THEN excluded.agent_end_ns ELSE agent_end_ns END,
	input_preview = CASE WHEN ` + newTop + ` THEN excluded.input_preview ELSE input_preview END,
	output_preview = CASE WHEN ` + newTop + ` THEN excluded.output_preview ELSE output_preview END,
	agent_input_tokens = CASE WHEN ` + newTop + ` THEN excluded.agent_input_tokens ELSE agent_input_tokens END,
	agent_output_tokens = CASE WHEN ` + newTop + ` THEN excluded.agent_output_tokens ELSE agent_output_tokens END,
	agent_cost = CASE WHEN ` + newTop + ` THEN excluded.agent_cost ELSE agent_cost END,
	run_id = CASE WHEN ` + newTop + ` THEN excluded.run_id ELSE run_id END,
	resumed = CASE WHEN ` + newTop + ` THEN excluded.resumed ELSE resumed END,
	code_ok = code_ok + excluded.code_ok,
	code_failed = code_failed + excluded.code_failed,
	span_count = span_count + excluded.span_count,
	error_count = error_count + excluded.error_count,
	chat_count = chat_count + excluded.chat_count,
	tool_count = tool_count + excluded.tool_count,
	input_tokens = input_tokens + excluded.input_tokens,
	output_tokens = output_tokens + excluded.output_tokens,
	cached_tokens = cached_tokens + excluded.cached_tokens,
	cost = cost + excluded.cost,
	cost_unknown = cost_unknown + excluded.cost_unknown,
	updated_seq = excluded.updated_seq`
)

// upsertSizes are how many summaries the upsert statements write, largest
// first: one statement for many rows saves most of the per-statement cost
// (64 rows a statement make a write of many runs about 8% cheaper than 16
// did), and the smaller ones write what is left without a statement per
// row.
var upsertSizes = [...]int{64, 16, 4, 1}

// upsertColumns is the number of values the upsert writes per summary.
const upsertColumns = 31

func upsertSQL(rows int) string {
	return valuesSQL(upsertTraceHead, upsertColumns, rows, "\n"+upsertTraceTail)
}

const newTop = `(excluded.agent_start_ns IS NOT NULL AND (agent_start_ns IS NULL
	OR excluded.agent_start_ns < agent_start_ns
	OR (excluded.agent_start_ns = agent_start_ns AND excluded.agent_end_ns > agent_end_ns)))`

// Write stores spans, as the exporter does, in one transaction: spans
// already stored (same trace and span id) are skipped, so writing a batch
// twice changes nothing.
func (s *Store) Write(ctx context.Context, spans []Span) error {
	rows := make([]row, len(spans))
	for i := range spans {
		rows[i] = rowFromSpan(&spans[i])
	}
	return s.writeRows(ctx, rows)
}

// writeRows inserts rows, updates the summaries of their traces and prunes,
// all in one IMMEDIATE transaction.
func (s *Store) writeRows(ctx context.Context, rows []row) error {
	if len(rows) == 0 {
		return nil
	}
	return s.inTx(ctx, len(rows), func(ins *inserter) error { return ins.insert(ctx, rows) })
}

// inTx runs insert, which stores spans (n in all) with ins, then updates
// the summaries of their traces and prunes, all in one IMMEDIATE
// transaction.
func (s *Store) inTx(ctx context.Context, n int, insert func(ins *inserter) error) (err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.stmts.prepareWanted(ctx); err != nil {
		return err
	}
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin write of %d spans: %w", n, err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	var seq int64
	next, err := s.stmts.in(ctx, tx, stmtNextSeq)
	if err != nil {
		return err
	}
	if err := next.QueryRowContext(ctx).Scan(&seq); err != nil {
		return fmt.Errorf("store: next write sequence: %w", err)
	}
	ins := &inserter{tx: tx, deltas: make(map[string]*delta, 4), order: make([]string, 0, 4), cfg: &s.cfg, stmts: s.stmts, texts: &s.texts}
	defer ins.close()
	if err := insert(ins); err != nil {
		return err
	}
	deltas, order, inserted := ins.deltas, ins.order, ins.inserted
	if inserted > 0 {
		if err := s.upsertSummaries(ctx, tx, deltas, order, seq); err != nil {
			return err
		}
		count, err := s.stmts.in(ctx, tx, stmtCountSpans)
		if err != nil {
			return err
		}
		if _, err := count.ExecContext(ctx, inserted); err != nil {
			return fmt.Errorf("store: count spans: %w", err)
		}
	}
	if err := s.prune(ctx, tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit %d spans: %w", n, err)
	}
	return nil
}

// upsertSummaries folds the deltas into their traces' summary rows, each
// statement writing as many as the largest of upsertSizes that fits.
func (s *Store) upsertSummaries(ctx context.Context, tx *sql.Tx, deltas map[string]*delta, order []string, seq int64) error {
	if err := linkFailures(ctx, tx, deltas); err != nil {
		return err
	}
	var inTx [len(upsertSizes)]*sql.Stmt
	args := make([]any, 0, upsertColumns*min(len(order), upsertSizes[0]))
	for len(order) > 0 {
		k := 0
		for upsertSizes[k] > len(order) {
			k++
		}
		n, st := upsertSizes[k], &inTx[k]
		if *st == nil {
			p, err := s.stmts.in(ctx, tx, stmtUpsert+stmtID(k))
			if err != nil {
				return err
			}
			*st = p
		}
		args = args[:0]
		for _, id := range order[:n] {
			args = appendDeltaArgs(args, deltas[id], seq)
		}
		if _, err := (*st).ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("store: update the summaries of %d traces from %s: %w", n, order[0], err)
		}
		order = order[n:]
	}
	return markContinued(ctx, tx, deltas)
}

// linkFailures keeps the failed spans of each delta and corrects its
// error count against the failed spans earlier writes kept: an error span
// whose error child was written before, or whose error parent was, passed
// a failure on and is not a failed step of its own.
func linkFailures(ctx context.Context, tx *sql.Tx, deltas map[string]*delta) error {
	for traceID, d := range deltas {
		for id, parent := range d.errSpans {
			if !d.errParents[id] {
				var n int
				if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM failed_spans WHERE trace_id = ? AND parent_id = ?`, traceID, id).Scan(&n); err != nil {
					return fmt.Errorf("store: read the failed spans of trace %s: %w", traceID, err)
				}
				if n > 0 {
					d.errors--
					d.mark(&d.errParents, id)
				}
			}
			if _, inWrite := d.errSpans[parent]; parent != "" && !inWrite {
				res, err := tx.ExecContext(ctx, `UPDATE failed_spans SET has_error_child = 1 WHERE trace_id = ? AND span_id = ? AND has_error_child = 0`, traceID, parent)
				if err != nil {
					return fmt.Errorf("store: link the failed spans of trace %s: %w", traceID, err)
				}
				if n, _ := res.RowsAffected(); n > 0 {
					d.errors-- // the parent was written first and counted
				}
			}
		}
		for id, parent := range d.errSpans {
			child := 0
			if d.errParents[id] {
				child = 1
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO failed_spans (trace_id, span_id, parent_id, has_error_child) VALUES (?, ?, ?, ?)
				ON CONFLICT (trace_id, span_id) DO NOTHING`, traceID, id, parent, child); err != nil {
				return fmt.Errorf("store: keep the failed spans of trace %s: %w", traceID, err)
			}
		}
	}
	return nil
}

// markContinued gives status continued to the earlier parts of a run that
// a trace of this write resumed: a part that waited for an answer, or
// whose process died (it stays running), went on in another process and
// is neither waiting nor running any more.
func markContinued(ctx context.Context, tx *sql.Tx, deltas map[string]*delta) error {
	for id, d := range deltas {
		if d.top == nil || !d.top.facts.resumed || d.top.facts.runID == "" {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE traces SET status = 'continued', updated_seq = (SELECT value FROM counters WHERE name = 'seq')
			WHERE run_id = ? AND trace_id != ? AND status IN ('waiting', 'running') AND start_ns <= ?`,
			d.top.facts.runID, id, d.startNS); err != nil {
			return fmt.Errorf("store: mark the earlier parts of run %s continued: %w", d.top.facts.runID, err)
		}
	}
	return nil
}

// appendDeltaArgs appends the upsert's values for d.
func appendDeltaArgs(args []any, d *delta, seq int64) []any {
	status, errMsg, rootID, rootName, eval := "running", d.firstError, "", "", ""
	if r := d.root; r != nil {
		status, rootID, rootName, eval = rootStatus(r), r.spanID, r.name, evalJSON(r)
		switch {
		case status == StatusEval:
			// Failed samples are scores, not the run's error.
			errMsg = ""
		case status == StatusWaiting:
			q := r.facts.questions
			if q == "" && d.top != nil {
				q = d.top.facts.questions
			}
			errMsg = waitingFor(q)
		case r.statusCode == "error" && r.statusMessage != "":
			errMsg = firstLine(r.statusMessage)
		case status == StatusOK && d.codeFailed > 0 && d.codeOK == 0:
			// The message stays the first failure's (the snippet's); the
			// upsert also counts the sandbox runs of earlier writes.
			status = StatusNoAnswer
		}
	}
	// The agent columns are NULL (nil, which needs no driver.Valuer call)
	// when this write has no agent span.
	var (
		agent, agentSpan, in, out, runID        string
		agentStart, agentEnd, agentIn, agentOut any
		agentCost                               any
		resumed                                 int64
	)
	if t := d.top; t != nil {
		agent, agentSpan = t.facts.agent, t.spanID
		agentStart, agentEnd = t.startNS, t.endNS
		in, out = preview(t.facts.input), preview(t.facts.output)
		agentIn, agentOut = t.facts.inTok, t.facts.outTok
		if t.facts.hasCost {
			agentCost = t.facts.cost
		}
		runID = t.facts.runID
		if t.facts.resumed {
			resumed = 1
		}
	}
	return append(args,
		d.traceID, d.startNS, d.endNS, status, errMsg, rootID, rootName,
		agent, agentSpan, agentStart, agentEnd, in, out,
		agentIn, agentOut, agentCost,
		d.spans, d.errors, d.chats, d.tools,
		d.inTok, d.outTok, d.cachedTok, d.cost, d.costUnknown, seq,
		runID, resumed, d.codeOK, d.codeFailed, eval,
	)
}
