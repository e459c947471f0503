package temporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
	lt "github.com/loomwork/loom/temporal"
	"go.temporal.io/sdk/workflow"
)

const modelRef = "openai:gpt-test"

type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type sum struct {
	Sum int `json:"sum"`
}

// newAdd is a pure tool: it runs in the workflow.
func newAdd() agent.Agent {
	a, err := agent.NewFunc("add", "adds two integers", func(_ context.Context, in addIn) (sum, error) {
		return sum{in.A + in.B}, nil
	})
	if err != nil {
		panic(err)
	}
	return a
}

type cityIn struct {
	City string `json:"city"`
}

type weather struct {
	City string `json:"city"`
	Temp int    `json:"temp"`
}

// newWeather is an I/O tool: it runs as an activity. calls counts its
// runs on the worker.
func newWeather(calls *atomic.Int32) agent.Agent {
	a, err := agent.NewFunc("weather", "current temperature of a city", func(_ context.Context, in cityIn) (weather, error) {
		if calls != nil {
			calls.Add(1)
		}
		if in.City == "" {
			return weather{}, errors.New("no city given")
		}
		return weather{City: in.City, Temp: len(in.City)}, nil
	})
	if err != nil {
		panic(err)
	}
	return a
}

// approveTool asks a person before it answers.
func newApproveTool() agent.Agent {
	a, err := agent.NewFunc("transfer", "transfers money after approval", func(ctx context.Context, in addIn) (string, error) {
		ans, err := agent.Ask(ctx, "approval", in, json.RawMessage(`{"type":"object","properties":{"approved":{"type":"boolean"}},"required":["approved"]}`))
		if err != nil {
			return "", err
		}
		var v struct{ Approved bool }
		if err := json.Unmarshal(ans, &v); err != nil {
			return "", err
		}
		if !v.Approved {
			return "denied", nil
		}
		return fmt.Sprintf("sent %d", in.A), nil
	})
	if err != nil {
		panic(err)
	}
	return a
}

func newAssistant(tools ...agent.Agent) agent.Agent {
	a, err := agent.NewAI(agent.AIConfig{
		Name:         "assistant",
		Instructions: "You are a helpful assistant.",
		Model:        lt.NewModel(modelRef, lt.ActivityOptions{}),
		Tools:        tools,
	})
	if err != nil {
		panic(err)
	}
	return a
}

// AssistantWorkflow runs the assistant with an in-workflow tool, an
// activity tool and a tool that asks for approval.
func AssistantWorkflow(w workflow.Context, prompt string) (string, error) {
	a := newAssistant(newAdd(), lt.ActivityTool(newWeather(nil), lt.ActivityOptions{}), newApproveTool())
	out, err := lt.Run(w, a, mustJSON(map[string]string{"message": prompt}))
	if err != nil {
		return "", err
	}
	var v struct{ Message string }
	if err := json.Unmarshal(out, &v); err != nil {
		return "", err
	}
	return v.Message, nil
}

// ErrorKindWorkflow runs the assistant and reports which loom sentinel its
// error matches on the workflow side.
func ErrorKindWorkflow(w workflow.Context, prompt string) (string, error) {
	_, err := agent.Invoke(lt.Context(w), newAssistant(), map[string]string{"message": prompt})
	switch {
	case err == nil:
		return "ok", nil
	case errors.Is(err, model.ErrAuth):
		return "auth: " + err.Error(), nil
	case errors.Is(err, model.ErrServer):
		return "server: " + err.Error(), nil
	default:
		return "other: " + err.Error(), nil
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// ChatWorkflow is a chat that continues as new every 3 turns.
func ChatWorkflow(w workflow.Context, st lt.ChatState) (lt.ChatState, error) {
	return lt.Chat(w, newAssistant(), st, lt.ChatOptions{TurnsPerRun: 3})
}

// LongChatWorkflow is a chat that continues as new only when Temporal
// suggests it.
func LongChatWorkflow(w workflow.Context, st lt.ChatState) (lt.ChatState, error) {
	return lt.Chat(w, newAssistant(), st, lt.ChatOptions{})
}

// TimeoutWorkflow runs the assistant under a one-hour timeout limit and
// reports the limit it breached, if any.
func TimeoutWorkflow(w workflow.Context, prompt string) (string, error) {
	ctx, cancel := agent.WithLimits(lt.Context(w), agent.Limits{Timeout: time.Hour})
	defer cancel()
	_, err := agent.Invoke(ctx, newAssistant(), prompt)
	var le *agent.LimitError
	switch {
	case errors.As(err, &le):
		return le.Limit + " after " + (time.Duration(le.Used) * time.Millisecond).String(), nil
	case err != nil:
		return "", err
	}
	return "ok", nil
}
