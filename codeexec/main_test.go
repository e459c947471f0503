package codeexec_test

import (
	"context"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/compose"
	"github.com/loomwork/loom/internal/testkit"
	"github.com/loomwork/loom/sandbox"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	sandbox.ServeWorkerIfChild() // the isolated sandbox's workers are this test binary
	goleak.VerifyTestMain(m)
}

func reviewer(t *testing.T, verdicts ...compose.Review) (agent.Agent, *[]string) {
	var inputs []string
	i := 0
	return testkit.Fn(t, "reviewer", func(_ context.Context, in map[string]any) (map[string]any, error) {
		inputs = append(inputs, in["message"].(string))
		v := verdicts[i]
		i++
		return map[string]any{"approved": v.Approved, "feedback": v.Feedback}, nil
	}), &inputs
}
