package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
)

// toolNamed returns the toolset's tool offered as name.
func toolNamed(t *testing.T, ts *Toolset, name string) agent.Agent {
	t.Helper()
	tools, err := ts.Tools(context.Background())
	require.NoError(t, err)
	for _, tl := range tools {
		if tl.Info().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

// runTool runs tl on input and returns its events and error.
func runTool(t *testing.T, tl agent.Agent, input string) ([]agent.Event, json.RawMessage, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var evs []agent.Event
	var out json.RawMessage
	var runErr error
	for ev, err := range tl.Run(ctx, json.RawMessage(input)) {
		evs = append(evs, ev)
		if ev.Kind == agent.EventRunEnd {
			out, runErr = ev.Output, err
		}
	}
	return evs, out, runErr
}

func TestEverythingTools(t *testing.T) {
	transports(t, func(t *testing.T, cfg Config) {
		cfg.Prefix = "ev"
		ts := connect(t, cfg)
		tools, err := ts.Tools(context.Background())
		require.NoError(t, err)
		names := map[string]bool{}
		for _, tl := range tools {
			require.True(t, model.ValidToolName(tl.Info().Name), tl.Info().Name)
			names[tl.Info().Name] = true
		}
		require.True(t, names["ev_get-sum"], "tools: %v", names)
		orig, ok := ts.Original("ev_get-sum")
		require.True(t, ok)
		require.Equal(t, "get-sum", orig)

		cases := []struct {
			name, tool, input string
			check             func(t *testing.T, evs []agent.Event, out json.RawMessage, err error)
		}{
			{"text", "ev_get-sum", `{"a":2,"b":40}`, func(t *testing.T, _ []agent.Event, out json.RawMessage, err error) {
				require.NoError(t, err)
				require.JSONEq(t, `{"message":"The sum of 2 and 40 is 42."}`, string(out))
			}},
			{"structured", "ev_get-structured-content", `{"location":"Chicago"}`, func(t *testing.T, _ []agent.Event, out json.RawMessage, err error) {
				require.NoError(t, err)
				var v struct {
					Temperature *float64 `json:"temperature"`
					Conditions  string   `json:"conditions"`
				}
				require.NoError(t, json.Unmarshal(out, &v))
				require.NotNil(t, v.Temperature, string(out))
				require.NotEmpty(t, v.Conditions)
			}},
			{"error", "ev_get-sum", `{"a":"two"}`, func(t *testing.T, _ []agent.Event, _ json.RawMessage, err error) {
				var te *ToolError
				require.ErrorAs(t, err, &te)
				require.Equal(t, "get-sum", te.Tool)
				require.NotEmpty(t, te.Message)
			}},
			{"image", "ev_get-tiny-image", `{}`, func(t *testing.T, evs []agent.Event, _ json.RawMessage, err error) {
				require.NoError(t, err)
				end := evs[len(evs)-1]
				var img *model.Image
				for _, p := range end.Parts {
					if i, ok := p.(model.Image); ok {
						img = &i
					}
				}
				require.NotNil(t, img, "parts: %#v", end.Parts)
				require.Equal(t, "image/png", img.MIMEType)
				require.NotEmpty(t, img.Data)
			}},
			{"progress", "ev_trigger-long-running-operation", `{"duration":0.2,"steps":2}`, func(t *testing.T, evs []agent.Event, out json.RawMessage, err error) {
				require.NoError(t, err)
				var deltas []string
				for _, ev := range evs {
					if ev.Kind == agent.EventTextDelta {
						deltas = append(deltas, ev.Text)
					}
				}
				// Over HTTP the last notification may come after the result.
				require.NotEmpty(t, deltas)
				require.Equal(t, "progress 1/2\n", deltas[0])
				require.Contains(t, string(out), "Long running operation completed")
			}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				evs, out, err := runTool(t, toolNamed(t, ts, c.tool), c.input)
				c.check(t, evs, out, err)
			})
		}
	})
}

func TestEverythingTimeout(t *testing.T) {
	transports(t, func(t *testing.T, cfg Config) {
		// The operation takes 30 s; the timeout is long enough that the
		// session's other calls answer within it on a loaded machine.
		cfg.Timeout = 3 * time.Second
		ts := connect(t, cfg)
		_, _, err := runTool(t, toolNamed(t, ts, "trigger-long-running-operation"), `{"duration":30,"steps":2}`)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.ErrorContains(t, err, "no answer within 3s")
		// The session is still usable.
		_, out, err := runTool(t, toolNamed(t, ts, "get-sum"), `{"a":1,"b":1}`)
		require.NoError(t, err)
		require.Contains(t, string(out), "is 2")
	})
}

func TestEverythingListChanged(t *testing.T) {
	// server-everything registers its client-dependent tools after the
	// session starts and announces them with notifications/tools/list_changed;
	// the toolset reads the list again and offers them.
	transports(t, func(t *testing.T, cfg Config) {
		ts := connect(t, cfg)
		require.Eventually(t, func() bool {
			tools, err := ts.Tools(context.Background())
			if err != nil {
				return false
			}
			for _, tl := range tools {
				if tl.Info().Name == "trigger-elicitation-request" {
					return true
				}
			}
			return false
		}, 30*time.Second, 20*time.Millisecond)
		// The list is cached until the next change: once the server's
		// announcements are over, reading it again lists nothing.
		require.Eventually(t, func() bool {
			before := ts.listCount()
			_, err := ts.Tools(context.Background())
			return err == nil && ts.listCount() == before
		}, 30*time.Second, 20*time.Millisecond)
	})
}

func TestEverythingRestartStdio(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ts := connect(t, stdioConfig(t, pidFile))
	sum := toolNamed(t, ts, "get-sum")
	_, _, err := runTool(t, sum, `{"a":1,"b":2}`)
	require.NoError(t, err)

	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	<-ts.current().gone // the client saw the server go

	_, out, err := runTool(t, sum, `{"a":3,"b":4}`)
	require.NoError(t, err)
	require.Contains(t, string(out), "is 7")
	b, err = os.ReadFile(pidFile)
	require.NoError(t, err)
	require.NotEqual(t, strconv.Itoa(pid), strings.TrimSpace(string(b)), "a new server process was started")
}

func TestEverythingRestartHTTP(t *testing.T) {
	srv := startHTTP(t)
	ts := connect(t, Config{URL: srv.url()})
	sum := toolNamed(t, ts, "get-sum")
	_, _, err := runTool(t, sum, `{"a":1,"b":2}`)
	require.NoError(t, err)

	srv.stop()
	srv.start() // the new process does not know the old session: 404

	_, out, err := runTool(t, sum, `{"a":3,"b":4}`)
	require.NoError(t, err)
	require.Contains(t, string(out), "is 7")
}

func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"none", Config{}, "set exactly one of Command, URL and Transport (0 are set)"},
		{"two", Config{Command: []string{"x"}, URL: "http://127.0.0.1:1/mcp"}, "(2 are set)"},
		{"negative timeout", Config{URL: "http://127.0.0.1:1/mcp", Timeout: -time.Second}, "Timeout is -1s"},
		{"headers without URL", Config{Command: []string{"x"}, Headers: map[string]string{"A": "b"}}, "Headers are only sent over HTTP"},
		{"bad URL", Config{URL: "127.0.0.1:1"}, "use an http:// or https:// URL"},
		{"empty program", Config{Command: []string{""}}, "empty program name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Connect(context.Background(), c.cfg)
			require.ErrorIs(t, err, ErrInvalidConfig)
			require.ErrorContains(t, err, c.want)
		})
	}
	_, err := Connect(context.Background(), Config{Command: []string{filepath.Join(t.TempDir(), "missing")}})
	require.True(t, errors.Is(err, ErrConnection), "%v", err)
}

func TestEverythingFilter(t *testing.T) {
	cfg := stdioConfig(t, "")
	cfg.Filter = func(name string) bool { return name == "get-sum" || name == "echo" }
	ts := connect(t, cfg)
	tools, err := ts.Tools(context.Background())
	require.NoError(t, err)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Info().Name)
	}
	require.ElementsMatch(t, []string{"get-sum", "echo"}, names)
}
