package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/internal/testkit"
)

// TestChatCtrlC runs loom run --chat in a child process: Ctrl-C while an
// answer is being written cancels that turn only, and the conversation
// goes on; Ctrl-C twice in a row exits 130.
func TestChatCtrlC(t *testing.T) {
	slow := make(chan struct{}, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body chatBody
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		last := fmt.Sprint(body.Messages[len(body.Messages)-1].Content)
		if strings.Contains(last, "slow") {
			slow <- struct{}{}
			<-r.Context().Done() // an answer that never comes: only a cancel ends it
			return
		}
		b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "fake",
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": "fine, thanks"}, "finish_reason": "stop"}}})
		fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", b)
	}))
	defer srv.Close()
	file := writeFile(t, "loom.yaml", "version: loom/v1\nmodel: openai:gpt-test\nentry: helper\nagents:\n  helper:\n    type: ai\n    instructions: Be brief.\n")

	cmd := exec.Command(os.Args[0], "run", file, "--chat", "--db", filepath.Join(t.TempDir(), "cp.db"))
	cmd.Env = append(os.Environ(), childEnv+"=1", "OPENAI_BASE_URL="+srv.URL+"/v1", "OPENAI_API_KEY=sk-test-0123456789abcdef")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	var out, errs testkit.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	waitSlow := func() {
		select {
		case <-slow:
		case <-time.After(60 * time.Second):
			t.Fatalf("the slow question never reached the model; stderr: %s", errs.String())
		}
	}

	_, err = fmt.Fprintln(stdin, "slow question")
	require.NoError(t, err)
	waitSlow()
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	require.Eventually(t, func() bool { return strings.Contains(errs.String(), "answer cancelled") },
		30*time.Second, 10*time.Millisecond, "stderr: %s", errs.String())

	_, err = fmt.Fprintln(stdin, "how are you?")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "fine, thanks") },
		30*time.Second, 10*time.Millisecond, "the conversation went on after the cancelled turn; stderr: %s", errs.String())

	_, err = fmt.Fprintln(stdin, "slow again")
	require.NoError(t, err)
	waitSlow()
	// The first press cancels the turn, unless it comes within two
	// seconds of the last cancel: then it already ends the chat. Press
	// again only once the turn is seen cancelled.
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	deadline := time.After(60 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	pressed := false
wait:
	for {
		select {
		case <-done:
			break wait
		case <-tick.C:
			if !pressed && strings.Count(errs.String(), "answer cancelled") == 2 {
				require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
				pressed = true
			}
		case <-deadline:
			_ = cmd.Process.Kill()
			<-done
			t.Fatal("loom run --chat did not stop on a second Ctrl-C")
		}
	}
	require.Equal(t, 130, cmd.ProcessState.ExitCode(), "stderr: %s", errs.String())
	require.Contains(t, errs.String(), "loom run: interrupted by SIGINT (Ctrl-C)")
}
