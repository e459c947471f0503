package engine_test

import (
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// A Config that breaks the zero/negative rule fails every run at once,
// naming the field, and the stream still ends with one run end.
func TestEngineConfigRefusesNegativeValues(t *testing.T) {
	cases := []struct {
		name  string
		cfg   engine.Config
		field string
	}{
		{"negative timeout", engine.Config{Limits: agent.Limits{Timeout: -1}}, "engine.Config.Limits.Timeout"},
		{"negative invocations", engine.Config{Limits: agent.Limits{MaxInvocations: -2}}, "engine.Config.Limits.MaxInvocations"},
		{"negative tokens", engine.Config{Limits: agent.Limits{MaxTokens: -3}}, "engine.Config.Limits.MaxTokens"},
		{"unknown capture", engine.Config{ContentCapture: engine.Capture(7)}, "engine.Config.ContentCapture"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := testkit.Constant(t, "a", map[string]any{"ok": true})
			e := engine.New(c.cfg)
			_, err := e.Invoke(t.Context(), a, "x")
			require.ErrorIs(t, err, agent.ErrInvalidConfig)
			require.ErrorContains(t, err, c.field)
			ends := 0
			for ev := range e.Run(t.Context(), a, "x") {
				if ev.Kind == agent.EventRunEnd {
					ends++
				}
			}
			require.Equal(t, 1, ends)
		})
	}
}

// Zero means the default: no limits, capture from the environment.
func TestEngineConfigZeroIsDefault(t *testing.T) {
	e := engine.New(engine.Config{Model: modeltest.New(t, modeltest.Text("hi"))})
	require.Equal(t, agent.Limits{}, e.Limits())
	coder := testkit.NewAI(t, agent.AIConfig{Name: "coder"})
	res, err := e.Invoke(t.Context(), coder, "x")
	require.NoError(t, err)
	require.Equal(t, "hi", res.Text())
}

func TestCaptureIf(t *testing.T) {
	require.Equal(t, engine.CaptureOn, engine.CaptureIf(true))
	require.Equal(t, engine.CaptureOff, engine.CaptureIf(false))
}
