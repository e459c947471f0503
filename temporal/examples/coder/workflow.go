package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/agent/agentrt"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/sandbox"
	lt "github.com/loomwork/loom/temporal"
	"go.temporal.io/sdk/workflow"
)

// TaskQueue is the task queue of the coder's workflows and activities.
const TaskQueue = "loom-coder"

// ModelRef names the coder's model; each worker maps it to a provider
// and a key of its own (see newActivities).
const ModelRef = "openai:coder"

// CoderWorkflow solves task by writing JavaScript, which runs in the
// sandbox on a worker once a person approved it. The model call heartbeats
// every few seconds, so a killed worker's call is retried on another
// worker within 10 seconds.
func CoderWorkflow(w workflow.Context, task string) (string, error) {
	// Every snippet waits for a person: the question is answered by the
	// loom.answer signal or update.
	return solve(w, task, codeexec.ApproverFunc(func(context.Context, codeexec.ApprovalRequest) (codeexec.Approval, error) {
		return codeexec.Approval{}, codeexec.ErrPending
	}))
}

// SolveWorkflow is CoderWorkflow without the approval: the snippets run as
// the model writes them, contained by the sandbox alone. It is the batch
// form (`coder start -auto`), for many runs no person watches.
func SolveWorkflow(w workflow.Context, task string) (string, error) {
	return solve(w, task, nil)
}

// solve runs the Coder→Sandbox workflow on task, asking approver (when
// not nil) before each snippet runs.
func solve(w workflow.Context, task string, approver codeexec.Approver) (string, error) {
	tool, err := lt.SandboxTool(sandbox.DefaultLimits(), lt.ActivityOptions{StartToCloseTimeout: time.Minute, HeartbeatTimeout: 10 * time.Second})
	if err != nil {
		return "", err
	}
	ce, err := codeexec.New(codeexec.Config{
		Model:    lt.NewModel(ModelRef, lt.ActivityOptions{HeartbeatTimeout: 10 * time.Second}),
		Tool:     tool,
		Approver: approver,
	})
	if err != nil {
		return "", err
	}
	in, err := agentrt.EncodeInput(task)
	if err != nil {
		return "", err
	}
	out, err := lt.Run(w, ce, in)
	if err != nil {
		return "", err
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		return "", fmt.Errorf("coder: decode the answer: %w", err)
	}
	s, _ := v[agent.DefaultTextKey].(string)
	return s, nil
}
