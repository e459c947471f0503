package jstool

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/sandbox"
)

// The evaluateJs tool is one implementation with or without code mode: both
// check the input against the tool's schema before any code runs, and
// refuse a bad input the same way, naming the field.
func TestToolValidatesInputInEveryMode(t *testing.T) {
	exec := newTestInProcess(t, sandbox.InProcessConfig{})
	plain, err := New(exec, Config{})
	require.NoError(t, err)
	codeMode, err := New(exec, Config{Toolsets: []agent.Toolset{testToolset(t)}})
	require.NoError(t, err)
	tests := []struct {
		name  string
		input string
		want  string // in the error; "" means the input is accepted
		// invalid: the schema check refused it (agent.ErrInvalidInput)
		invalid bool
	}{
		{"code", `{"code": "6 * 7"}`, "", false},
		{"jsCode", `{"jsCode": "6 * 7"}`, "", false},
		{"code not a string", `{"code": 42}`, "code", true},
		{"jsCode not a string", `{"jsCode": ["6 * 7"]}`, "jsCode", true},
		{"not an object", `"6 * 7"`, "object", true},
		{"no code", `{}`, "no code", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var msgs []string
			for _, tool := range []agent.Agent{plain, codeMode} {
				out, err := agent.Invoke(context.Background(), tool, json.RawMessage(tc.input))
				if tc.want == "" {
					require.NoError(t, err)
					var got Output
					require.NoError(t, json.Unmarshal(out, &got))
					require.JSONEq(t, `42`, string(got.Result))
					continue
				}
				require.Error(t, err)
				require.ErrorContains(t, err, tc.want)
				require.Equal(t, tc.invalid, errors.Is(err, agent.ErrInvalidInput), "%v", err)
				msgs = append(msgs, err.Error())
			}
			if tc.want != "" {
				require.Equal(t, msgs[0], msgs[1], "both modes refuse the input alike")
			}
		})
	}
}

// The description states the limits a run gets: a zero field is its
// default, never a limit of 0.
func TestDescriptionFillsDefaults(t *testing.T) {
	require.Equal(t, Description(sandbox.DefaultLimits()), Description(sandbox.Limits{}))
	d := Description(sandbox.Limits{Timeout: 2 * time.Second})
	require.Contains(t, d, "2s of time, 256 MiB of memory, 64 KiB of code, 256 KiB of result")
	require.Contains(t, d, "at most 2000 nested calls")
}
