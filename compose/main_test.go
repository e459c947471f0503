package compose_test

import (
	"encoding/json"
	"testing"

	"github.com/loomwork/loom/sandbox"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	sandbox.ServeWorkerIfChild() // the isolated sandbox's workers are this test binary
	goleak.VerifyTestMain(m)
}

func decode(t testing.TB, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m), "output %s", raw)
	return m
}
