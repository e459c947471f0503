// Package coderrun runs the real Coder→Sandbox workflow for the tests of
// observe and its viewer: the scripted model, the in-process sandbox and
// the engine, with spans recorded to a given tracer provider.
package coderrun

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/jstool"
)

// Factorial is a snippet that computes 15!.
const Factorial = `function f(n){return n<=1?1:n*f(n-1)} f(15)`

// Workflow returns the Coder→Sandbox workflow on the in-process sandbox.
func Workflow(t *testing.T) *codeexec.CodeExecution {
	t.Helper()
	exec, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	require.NoError(t, err)
	tool, err := jstool.New(exec, jstool.Config{})
	require.NoError(t, err)
	ce, err := codeexec.New(codeexec.Config{Tool: tool})
	require.NoError(t, err)
	return ce
}

// Run runs the workflow on "Calculate 15!" with the model's turns,
// recording spans to tp, with content capture when capture is set.
func Run(t *testing.T, tp trace.TracerProvider, capture bool, turns ...modeltest.Turn) *engine.Result {
	t.Helper()
	eng := engine.New(engine.Config{Model: modeltest.New(t, turns...), TracerProvider: tp, ContentCapture: engine.CaptureIf(capture)})
	res, err := eng.Invoke(t.Context(), Workflow(t), "Calculate 15!")
	require.NoError(t, err)
	return res
}
