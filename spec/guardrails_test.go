package spec_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/spec"
	"github.com/stretchr/testify/require"
)

const guardedYAML = `version: loom/v1
model: test:scripted
entry: assistant
agents:
  assistant:
    type: ai
    instructions: Help.
    guardrails:
      input:
        - builtin: max_input_size
          max_bytes: 40
        - agent: no_jokes
          name: topic
      output:
        - builtin: deny_list
          mask: true
      hold: true
`

// noJokes is a registered tool guardrail: it answers a verdict.
func noJokes(t *testing.T) agent.Agent {
	t.Helper()
	f, err := agent.NewFunc("no_jokes", "Refuses jokes.", func(_ context.Context, in agent.GuardInput) (agent.Verdict, error) {
		if strings.Contains(in.Message, "joke") {
			return agent.Reject("no jokes here"), nil
		}
		return agent.Allow(), nil
	})
	require.NoError(t, err)
	return f
}

func TestGuardrailsFromYAML(t *testing.T) {
	require.NoError(t, schemaErr(t, compiledSchema(t), guardedYAML), "the schema accepts guardrails")
	m := modeltest.New(t, modeltest.TextDeltas("the key is ", "AKIAIOSFODNN7EXAMPLE"))
	p, err := spec.Load(write(t, map[string]string{"loom.yaml": guardedYAML}), spec.Registry{
		Models: func(string) (model.Model, error) { return m, nil },
		Tools:  map[string]agent.Agent{"no_jokes": noJokes(t)},
	})
	require.NoError(t, err)

	_, err = agent.Invoke(t.Context(), p.Entry, "tell me a joke")
	var tw *agent.TripwireError
	require.ErrorAs(t, err, &tw)
	require.Equal(t, "topic", tw.Guardrail)

	_, err = agent.Invoke(t.Context(), p.Entry, strings.Repeat("long ", 10))
	require.ErrorAs(t, err, &tw)
	require.Equal(t, "max_input_size", tw.Guardrail)
	require.Zero(t, m.Calls())

	var text strings.Builder
	for ev, err := range p.Entry.Run(t.Context(), []byte(`{"message":"key?"}`)) {
		require.NoError(t, err)
		if ev.Kind == agent.EventTextDelta {
			text.WriteString(ev.Text)
		}
	}
	require.Equal(t, "the key is AKIA********", text.String())
}

func TestGuardrailsYAMLErrors(t *testing.T) {
	cases := []struct {
		name, guardrails, want string
	}{
		{"unknown reference", "input: [{agent: no_joke}]", `agents.a.guardrails.input[0].agent: unknown agent or tool "no_joke"; did you mean no_jokes?`},
		{"unknown builtin", "output: [{builtin: deny}]", `agents.a.guardrails.output[0].builtin: unknown value "deny"`},
		{"both", "input: [{builtin: deny_list, agent: no_jokes}]", "guardrails.input[0]: set exactly one of builtin and agent"},
		{"parallel output", "output: [{agent: no_jokes, parallel: true}]", "guardrails.output[0]: parallel applies to input guardrails only"},
		{"size without bytes", "input: [{builtin: max_input_size}]", "max_input_size needs max_bytes"},
		{"misplaced option", "input: [{builtin: max_input_size, max_bytes: 9, mask: true}]", "mask and patterns apply to builtin deny_list only"},
		{"bad pattern", "output: [{builtin: deny_list, patterns: ['(']}]", "deny-list deny_list: pattern 0"},
		{"hold without output", "hold: true", "no OutputGuardrails"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := "version: loom/v1\nmodel: test:scripted\nagents:\n  a:\n    type: ai\n    guardrails: {" + strings.TrimSuffix(tc.guardrails, "\n") + "}\n"
			_, err := spec.Load(write(t, map[string]string{"loom.yaml": src}), spec.Registry{
				Models: func(string) (model.Model, error) { return modeltest.New(t), nil },
				Tools:  map[string]agent.Agent{"no_jokes": noJokes(t)},
			})
			require.ErrorIs(t, err, spec.ErrInvalid)
			require.ErrorContains(t, err, tc.want)
		})
	}
}
