package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/stretchr/testify/require"
)

func echoBody(_ context.Context, r *agent.Run) (json.RawMessage, error) { return r.Input, nil }

func TestNewChecksInfo(t *testing.T) {
	tests := []struct {
		name string
		info agent.Info
		body agent.Body
		want string
	}{
		{"empty name", agent.Info{}, echoBody, `agent name is empty`},
		{"bad name", agent.Info{Name: "my step"}, echoBody, `agent name "my step" is not a valid identifier`},
		{"nil body", agent.Info{Name: "step"}, nil, `agent "step" has no body`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := agent.New(tt.info, tt.body)
			require.ErrorIs(t, err, agent.ErrInvalidConfig)
			require.ErrorContains(t, err, tt.want)
			require.Nil(t, a)
		})
	}
}

func TestNewFillsDefaults(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	tests := []struct {
		name           string
		info           agent.Info
		kind, in, outS string
	}{
		{"defaults", agent.Info{Name: "step"}, "agent", `{"type":"object","additionalProperties":true}`, `{"type":"object","additionalProperties":true}`},
		{"given", agent.Info{Name: "step", Kind: "workflow", InputSchema: schema, OutputSchema: schema}, "workflow", string(schema), string(schema)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := agent.New(tt.info, echoBody)
			require.NoError(t, err)
			require.Equal(t, tt.info.Name, a.Info().Name)
			require.Equal(t, tt.kind, a.Info().Kind)
			require.JSONEq(t, tt.in, string(a.Info().InputSchema))
			require.JSONEq(t, tt.outS, string(a.Info().OutputSchema))
		})
	}
}

func TestNewRunsBody(t *testing.T) {
	inner, err := agent.New(agent.Info{Name: "inner", Description: "Doubles n."}, func(_ context.Context, r *agent.Run) (json.RawMessage, error) {
		var in struct{ N int }
		if err := json.Unmarshal(r.Input, &in); err != nil {
			return nil, err
		}
		return json.Marshal(map[string]int{"n": 2 * in.N})
	})
	require.NoError(t, err)
	require.Equal(t, "Doubles n.", inner.Info().Description)
	outer, err := agent.New(agent.Info{Name: "outer"}, func(ctx context.Context, r *agent.Run) (json.RawMessage, error) {
		require.Same(t, r, agent.CurrentRun(ctx))
		return r.Call(ctx, inner, r.Input)
	})
	require.NoError(t, err)

	var kinds []string
	for ev, err := range outer.Run(t.Context(), json.RawMessage(`{"n":21}`)) {
		require.NoError(t, err)
		kinds = append(kinds, ev.Agent+":"+ev.Kind.String())
	}
	require.Equal(t, []string{"outer:run_start", "inner:run_start", "inner:run_end", "outer:run_end"}, kinds)
	out, err := agent.Invoke(t.Context(), outer, json.RawMessage(`{"n":21}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"n":42}`, string(out))

	boom, err := agent.New(agent.Info{Name: "boom"}, func(context.Context, *agent.Run) (json.RawMessage, error) { panic("boom") })
	require.NoError(t, err)
	_, err = agent.Invoke(t.Context(), boom, nil)
	require.ErrorIs(t, err, agent.ErrPanic)
}
