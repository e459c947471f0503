package store

import (
	"encoding/json"
	"fmt"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/pricing"
)

// delta is what one write adds to a trace's summary row.
type delta struct {
	traceID                  string
	startNS, endNS           int64
	spans, errors            int64
	chats, tools             int64
	inTok, outTok, cachedTok int64
	cost                     float64
	costUnknown              int64
	firstError               string
	codeOK, codeFailed       int64 // sandbox runs that computed a value, and that failed

	// A failure passed up through nested spans (a snippet's sandbox run,
	// its tool agent, its tool call) is one failed step: an error span
	// with an error child is not counted. errSpans are the error spans
	// seen (with their parents), errParents the spans that have an error
	// child.
	errSpans   map[string]string
	errParents map[string]bool

	root *row // the root span, when this write has it
	top  *row // the earliest-starting invoke_agent span of this write
}

// add folds r into d, pricing chat spans that carry no cost with c.
func (d *delta) add(r *row, c *config) {
	if d.spans == 0 || r.startNS < d.startNS {
		d.startNS = r.startNS
	}
	d.endNS = max(d.endNS, r.endNS)
	d.spans++
	if r.statusCode == "error" {
		d.addError(r.spanID, r.parentID)
		if d.firstError == "" {
			d.firstError = firstLine(r.statusMessage)
		}
	}
	switch r.facts.op {
	case opChat:
		d.chats++
		d.inTok += r.facts.inTok
		d.outTok += r.facts.outTok
		d.cachedTok += r.facts.cachedTok
		switch {
		case r.facts.hasCost:
			d.cost += r.facts.cost
		default:
			usd, known := c.cost(r.facts.provider, r.facts.model, model.Usage{
				InputTokens: r.facts.inTok, OutputTokens: r.facts.outTok, CachedInputTokens: r.facts.cachedTok,
			})
			d.cost += usd
			if !known {
				d.costUnknown++
			}
		}
	case opExecuteTool:
		d.tools++
	case "":
		if r.name == sandboxSpan {
			if r.statusCode == "error" {
				d.codeFailed++
			} else {
				d.codeOK++
			}
		}
	case opInvokeAgent:
		if d.top == nil || outer(r, d.top) {
			d.top = r
		}
	}
	if r.root {
		d.root = r
	}
}

// merge folds o, the delta of spans written after d's, into d, as adding
// o's rows one by one after d's would.
func (d *delta) merge(o *delta) {
	if o.spans == 0 {
		return
	}
	if d.spans == 0 || o.startNS < d.startNS {
		d.startNS = o.startNS
	}
	d.endNS = max(d.endNS, o.endNS)
	d.spans += o.spans
	d.errors += o.errors
	// o counted its error spans that have error children in d, and d
	// counted its error spans that have error children in o.
	for id := range o.errSpans {
		if d.errParents[id] && !o.errParents[id] {
			d.errors--
		}
	}
	for id := range o.errParents {
		if _, ok := d.errSpans[id]; ok && !d.errParents[id] {
			d.errors--
		}
	}
	for id, parent := range o.errSpans {
		if d.errSpans == nil {
			d.errSpans = map[string]string{}
		}
		d.errSpans[id] = parent
	}
	for id := range o.errParents {
		d.mark(&d.errParents, id)
	}
	d.chats += o.chats
	d.tools += o.tools
	d.inTok += o.inTok
	d.outTok += o.outTok
	d.cachedTok += o.cachedTok
	d.cost += o.cost
	d.costUnknown += o.costUnknown
	d.codeOK += o.codeOK
	d.codeFailed += o.codeFailed
	if d.firstError == "" {
		d.firstError = o.firstError
	}
	if o.top != nil && (d.top == nil || outer(o.top, d.top)) {
		d.top = o.top
	}
	if o.root != nil {
		d.root = o.root
	}
}

// addError counts error span id (child of parent) as a failed step,
// unless it only passed on an error child's failure, and uncounts its
// parent when that was counted as a failure of its own.
func (d *delta) addError(id, parent string) {
	if !d.errParents[id] {
		d.errors++
	}
	if d.errSpans == nil {
		d.errSpans = map[string]string{}
	}
	d.errSpans[id] = parent
	if parent != "" && !d.errParents[parent] {
		if _, ok := d.errSpans[parent]; ok {
			d.errors-- // the parent ended first and was counted
		}
		d.mark(&d.errParents, parent)
	}
}

func (d *delta) mark(set *map[string]bool, id string) {
	if *set == nil {
		*set = map[string]bool{}
	}
	(*set)[id] = true
}

// outer reports whether agent span a encloses or precedes b: it started
// earlier, or at the same time and ended later.
func outer(a, b *row) bool {
	return a.startNS < b.startNS || (a.startNS == b.startNS && a.endNS > b.endNS)
}

// sandboxSpan is the name of the span of one sandbox run (package sandbox).
const sandboxSpan = "sandbox.run"

// rootStatus maps a root span to the trace status shown in lists:
// "ok", "error", "limit", "waiting" (paused for an answer; neither a
// success nor a failure) or "eval" (an evaluation that ran to its end:
// its scores, not a status, say how it went).
// A workflow's own verdict (loom.workflow.outcome) wins over the agent
// outcome, which wins over the span status.
func rootStatus(r *row) string {
	if isEval(r) {
		if r.statusCode == "error" {
			return "error" // the evaluation itself failed or was stopped
		}
		return "eval"
	}
	switch r.facts.wfOutcome {
	case "answered":
		return "ok"
	case "failed":
		return "error"
	case "limit":
		return "limit"
	case "waiting":
		return "waiting"
	}
	switch r.facts.outcome {
	case "ok", "error", "limit", "waiting":
		return r.facts.outcome
	}
	if r.statusCode == "error" {
		return "error"
	}
	return "ok"
}

// isEval reports whether r is an evaluation's root span (package evals).
func isEval(r *row) bool {
	return r.facts.eval != nil && r.facts.eval.Dataset != ""
}

// evalJSON encodes the scores of evaluation root r for its trace's eval
// column; empty for any other span.
func evalJSON(r *row) string {
	if !isEval(r) {
		return ""
	}
	b, err := json.Marshal(r.facts.eval)
	if err != nil { // a NaN score, which JSON cannot hold
		return ""
	}
	return string(b)
}

// waitingFor describes what a paused run waits for, from its
// loom.questions: "waits for approval q1" (and how many more).
func waitingFor(questions string) string {
	var qs []struct {
		ID   string `json:"id"`
		Kind string `json:"kind"`
	}
	if json.Unmarshal([]byte(questions), &qs) != nil || len(qs) == 0 {
		return "waits for an answer"
	}
	msg := "waits for " + qs[0].Kind + " " + qs[0].ID
	if len(qs) > 1 {
		msg += fmt.Sprintf(" and %d more", len(qs)-1)
	}
	return msg
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

func (c *config) cost(provider, modelName string, u model.Usage) (float64, bool) {
	if c.prices != nil {
		return c.prices.Cost(provider, modelName, u)
	}
	return pricing.Cost(provider, modelName, u)
}
