package codeexec_test

import (
	"os"
	"testing"

	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/stretchr/testify/require"
)

// defaultSandboxChild makes the test binary run
// TestDefaultSandboxContainsNativeRecursion's body.
const defaultSandboxChild = "LOOM_CODEEXEC_TEST_DEFAULT_SANDBOX"

// The sandbox codeexec.New starts when given none is the isolated worker:
// native recursion, which kills any process that runs it in process, ends
// as a stack overflow in a worker that is replaced, and the next snippet
// runs. The body runs in a child process, so that a default in process
// would kill the child, which the parent reports, not the tests.
func TestDefaultSandboxContainsNativeRecursion(t *testing.T) {
	if os.Getenv(defaultSandboxChild) == "" {
		out, err := testkit.Child("TestDefaultSandboxContainsNativeRecursion", defaultSandboxChild+"=1").Output()
		require.NoError(t, err, "the child process must survive the snippet: %s", out)
		require.Contains(t, string(out), "PASS")
		return
	}
	m := modeltest.New(t,
		modeltest.ToolCalls(jsCall("c1", `const o = {}; o.toString = Object.prototype.toLocaleString; String(o)`)),
		modeltest.ToolCalls(jsCall("c2", "6*7")),
		modeltest.Text("done"),
	)
	ce, err := codeexec.New(codeexec.Config{Model: m, MaxRetries: 2})
	require.NoError(t, err)
	defer ce.Close()
	res, err := engine.New(engine.Config{}).Invoke(t.Context(), ce, "attack")
	require.NoError(t, err)
	require.Equal(t, "done", res.Text())
	msg := errorText(t, toolResult(t, m, 1))
	require.Contains(t, msg, "recursed too deeply", "the stack-overflow kind")
	require.Contains(t, msg, "a fresh one started", "a worker process died and was replaced")
	require.JSONEq(t, `{"result":42,"logs":[]}`, string(toolResult(t, m, 2).Content))
}
