package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type addIn struct {
	A int `json:"a" jsonschema:"description=first addend"`
	B int `json:"b" jsonschema:"description=second addend"`
}

type addOut struct {
	Sum int `json:"sum"`
}

func addTool(t testing.TB) *agent.Func[addIn, addOut] {
	t.Helper()
	f, err := agent.NewFunc("add", "Adds two integers.", func(_ context.Context, in addIn) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	})
	require.NoError(t, err)
	return f
}

func outputText(t testing.TB, out json.RawMessage) string {
	t.Helper()
	var v struct {
		Message string `json:"message"`
	}
	require.NoError(t, json.Unmarshal(out, &v), "output %s", out)
	return v.Message
}
