package spec_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/spec"
	"github.com/stretchr/testify/require"
)

const reviewGraph = `version: loom/v1
model: scripted
entry: review
agents:
  writer: {type: ai, instructions: Write.}
  reviewer: {type: ai, instructions: Review.}
  review:
    type: graph
    description: Drafts, reviews, and asks before it publishes.
    entry: draft
    nodes:
      draft:
        agent: writer
        input: "({message: 'Write about ' + state.message + (state.feedback ? '. Fix: ' + state.feedback.message : '')})"
      check:
        agent: reviewer
        input: "({message: state.draft.message})"
        output: feedback
      approve:
        human: {kind: approval, prompt: Publish the draft?, show: [draft]}
    edges:
      - {from: draft, to: check}
      - from: check
        branch: "state.feedback.message.startsWith('APPROVE') ? 'approve' : 'draft'"
        targets: [approve, draft]
      - {from: approve, branch: "state.approve.approved ? 'end' : 'draft'", targets: [end, draft]}
`

func TestGraphEntryAsksAndResumesFromItsCheckpoint(t *testing.T) {
	store := checkpoint.NewMemory()
	path := write(t, map[string]string{"loom.yaml": reviewGraph})
	m := modeltest.New(t,
		modeltest.Text("Draft 1"),
		modeltest.Text("REVISE: shorter"),
		modeltest.Text("Draft 2"),
		modeltest.Text("APPROVE"),
	)
	reg := spec.Registry{Sandbox: inProcess(t), Checkpoints: store, Models: func(string) (model.Model, error) { return m, nil }}
	p, err := spec.Load(path, reg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })

	var runID string
	var nodes []string
	var runErr error
	for ev, err := range engine.New(engine.Config{Checkpoints: store}).Run(t.Context(), p.Entry, json.RawMessage(`{"message":"otters"}`)) {
		if ev.Kind == agent.EventRunStart && runID == "" {
			runID = ev.RunID
		}
		if ev.Kind == agent.EventRunStart && (ev.Agent == "draft" || ev.Agent == "check" || ev.Agent == "approve") {
			nodes = append(nodes, ev.Agent)
		}
		if err != nil {
			runErr = err
		}
	}
	var ie *agent.InterruptedError
	require.ErrorAs(t, runErr, &ie)
	require.Equal(t, []string{"draft", "check", "draft", "check", "approve"}, nodes)
	require.Len(t, ie.Questions, 1)
	q := ie.Questions[0]
	require.Equal(t, "approval", q.Kind)
	require.JSONEq(t, `{"prompt":"Publish the draft?","state":{"draft":{"message":"Draft 2"}}}`, string(q.Payload))
	require.Equal(t, "Write about otters. Fix: REVISE: shorter", m.Request(2).Messages[len(m.Request(2).Messages)-1].Text())
	require.Equal(t, 4, m.Calls())

	// Another process: the same file and store, a model that must not be
	// called, since no node runs again.
	p2, err := spec.Load(path, spec.Registry{Sandbox: reg.Sandbox, Checkpoints: store, Models: func(string) (model.Model, error) { return modeltest.New(t), nil }})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p2.Close()) })
	e2 := engine.New(engine.Config{Checkpoints: store})
	pending, err := e2.Pending(t.Context(), runID)
	require.NoError(t, err)
	require.Len(t, pending, 1)
	require.Equal(t, q.ID, pending[0].ID, "the engine lists the graph's question")
	res, err := e2.ResumeInvoke(t.Context(), p2.Entry, runID, map[string]json.RawMessage{q.ID: json.RawMessage(`{"approved":true}`)})
	require.NoError(t, err, "the engine resumes the graph")
	var state map[string]any
	require.NoError(t, res.Decode(&state))
	require.Equal(t, "otters", state["message"])
	require.Equal(t, map[string]any{"message": "Draft 2"}, state["draft"])
	require.Equal(t, map[string]any{"approved": true}, state["approve"])

	_, err = e2.ResumeInvoke(t.Context(), p2.Entry, runID, map[string]json.RawMessage{q.ID: json.RawMessage(`{"approved":true}`)})
	require.ErrorIs(t, err, engine.ErrRunEnded, "a graph that ended has nothing to resume")
}

func TestGraphEntryBranchFunction(t *testing.T) {
	echo, err := agent.NewFunc("echo", "Echoes.", func(_ context.Context, in map[string]any) (map[string]any, error) {
		return map[string]any{"n": len(in)}, nil
	})
	require.NoError(t, err)
	path := write(t, map[string]string{"loom.yaml": `version: loom/v1
entry: flow
agents:
  flow:
    type: graph
    entry: count
    nodes:
      count: {agent: echo}
      big: {agent: echo, output: big}
    edges:
      - {from: count, func: size, targets: [big, end]}
    finish: [big]
`})
	var seen map[string]json.RawMessage
	p, err := spec.Load(path, spec.Registry{
		Funcs: map[string]agent.Agent{"echo": echo},
		Branches: map[string]spec.BranchFunc{"size": func(_ context.Context, s map[string]json.RawMessage) ([]string, error) {
			seen = s
			return []string{"big"}, nil
		}},
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	out, err := agent.Invoke(t.Context(), p.Entry, map[string]any{"a": 1, "b": 2})
	require.NoError(t, err)
	require.JSONEq(t, `{"a":1,"b":2,"count":{"n":2},"big":{"n":3}}`, string(out))
	require.JSONEq(t, `{"n":2}`, string(seen["count"]))
}

func TestGraphEntryBadBranchValue(t *testing.T) {
	path := write(t, map[string]string{"loom.yaml": `version: loom/v1
entry: flow
agents:
  id: {type: function, code: "input"}
  flow:
    type: graph
    entry: one
    nodes:
      one: {agent: id}
    edges:
      - {from: one, branch: "42", targets: [end]}
`})
	p, err := spec.Load(path, spec.Registry{Sandbox: inProcess(t)})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	_, err = agent.Invoke(t.Context(), p.Entry, map[string]any{})
	require.ErrorContains(t, err, `branch from "one": the expression returned 42: want a node's name, a list of names, or "end"`)

	_, err = agent.Invoke(t.Context(), p.Entry, json.RawMessage(`["not an object"]`))
	require.ErrorIs(t, err, agent.ErrInvalidInput)
}

// TestEngineResumesGraphEntries: an engine's resume continues a graph
// entry from the graph's own checkpoint with the answers it was given,
// whether the graph is the run's root or nested in a sequence: the run
// that stopped is the run that ends, nodes that ran are not run again, a
// graph that asks twice is resumed twice, and a second resume of the same
// pause is refused.
func TestEngineResumesGraphEntries(t *testing.T) {
	const file = `version: loom/v1
agents:
  count: {type: function, code: "({n: (input.n || 0) + 1})"}
  flow:
    type: graph
    entry: first
    nodes:
      first: {agent: count, output: first}
      name: {human: {prompt: Name?}}
      city: {human: {prompt: City?}}
    edges:
      - {from: first, to: name}
      - {from: name, to: city}
    finish: [city]
  outer:
    type: sequence
    steps: [count, flow]
`
	for _, tc := range []struct {
		entry string
		want  string
	}{
		{"flow", `{"first":{"n":1},"name":"Ada","city":"Paris"}`},
		{"outer", `{"n":1,"first":{"n":2},"name":"Ada","city":"Paris"}`},
	} {
		t.Run(tc.entry, func(t *testing.T) {
			store := checkpoint.NewMemory()
			path := write(t, map[string]string{"loom.yaml": "entry: " + tc.entry + "\n" + file})
			sb := countingSandbox{Executor: inProcess(t)}
			p, err := spec.Load(path, spec.Registry{Checkpoints: store, Sandbox: &sb})
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, p.Close()) })
			e := engine.New(engine.Config{Checkpoints: store})
			ctx := t.Context()

			_, err = e.Invoke(ctx, p.Entry, map[string]any{})
			var ie *agent.InterruptedError
			require.ErrorAs(t, err, &ie)
			require.Len(t, ie.Questions, 1)
			runID := ie.Questions[0].Run
			ran := sb.runs.Load()
			require.Positive(t, ran)

			_, err = e.ResumeInvoke(ctx, p.Entry, runID, map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`"Ada"`)})
			var again *agent.InterruptedError
			require.ErrorAs(t, err, &again, "the graph asks its second question")
			require.Len(t, again.Questions, 1)
			require.NotEqual(t, ie.Questions[0].ID, again.Questions[0].ID)
			require.Equal(t, runID, again.Questions[0].Run, "the same run goes on")

			_, err = e.ResumeInvoke(ctx, p.Entry, runID, map[string]json.RawMessage{ie.Questions[0].ID: json.RawMessage(`"Bob"`)})
			require.ErrorIs(t, err, engine.ErrAlreadyResumed)

			res, err := e.ResumeInvoke(ctx, p.Entry, runID, map[string]json.RawMessage{again.Questions[0].ID: json.RawMessage(`"Paris"`)})
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(res.Output))
			require.Equal(t, ran, sb.runs.Load(), "no function node ran again")

			pending, err := e.Pending(ctx, runID)
			require.NoError(t, err)
			require.Empty(t, pending)
			cps, err := store.List(ctx, runID)
			require.NoError(t, err)
			require.Equal(t, engine.CheckpointEnd, cps[len(cps)-1].Kind, "the run that stopped has ended")
		})
	}
}

// TestGraphEntryResumedWithoutItsAnswers: an engine's resume that answers
// none of the graph's questions leaves the run waiting for them, and a
// later resume with the answer finishes it.
func TestGraphEntryResumedWithoutItsAnswers(t *testing.T) {
	store := checkpoint.NewMemory()
	path := write(t, map[string]string{"loom.yaml": `version: loom/v1
entry: flow
agents:
  flow:
    type: graph
    entry: ask
    nodes:
      ask: {human: {prompt: Name?}}
    finish: [ask]
`})
	p, err := spec.Load(path, spec.Registry{Checkpoints: store})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	e := engine.New(engine.Config{Checkpoints: store})
	_, err = e.Invoke(t.Context(), p.Entry, map[string]any{})
	var ie *agent.InterruptedError
	require.ErrorAs(t, err, &ie)
	q := ie.Questions[0]
	_, err = e.ResumeInvoke(t.Context(), p.Entry, q.Run, nil)
	var again *agent.InterruptedError
	require.ErrorAs(t, err, &again)
	require.Equal(t, []string{q.ID}, []string{again.Questions[0].ID}, "it asks the same question again")
	pending, err := e.Pending(t.Context(), q.Run)
	require.NoError(t, err)
	require.Len(t, pending, 1)
	require.Equal(t, q.ID, pending[0].ID)

	res, err := e.ResumeInvoke(t.Context(), p.Entry, q.Run, map[string]json.RawMessage{q.ID: json.RawMessage(`"Ada"`)})
	require.NoError(t, err)
	require.JSONEq(t, `{"ask":"Ada"}`, string(res.Output))
}

// countingSandbox counts the snippets it runs.
type countingSandbox struct {
	sandbox.Executor
	runs atomic.Int64
}

func (c *countingSandbox) Run(ctx context.Context, code string) (*sandbox.Result, error) {
	c.runs.Add(1)
	return c.Executor.Run(ctx, code)
}
