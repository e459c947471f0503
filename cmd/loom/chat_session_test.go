package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/internal/testkit"
)

// conversation is a fake model that keeps what each request showed it: it
// writes code for "15!", answers a tool result, never answers a question
// holding "slow" the first time, and otherwise says how many user messages
// it saw.
type conversation struct {
	mu       sync.Mutex
	requests [][]string // each request's messages, as "role: content"
	slow     chan struct{}
}

func newConversation(t *testing.T) *conversation {
	c := &conversation{slow: make(chan struct{}, 1)}
	release := make(chan struct{})
	sawSlow := false
	fakeChat(t, func(body chatBody, chunk func(delta, finish any)) {
		var msgs []string
		users := 0
		for _, m := range body.Messages {
			if m.Role == "user" {
				users++
			}
			if m.Role != "system" {
				msgs = append(msgs, m.Role+": "+fmt.Sprint(m.Content))
			}
		}
		c.mu.Lock()
		c.requests = append(c.requests, msgs)
		first := false
		last := body.Messages[len(body.Messages)-1]
		text := fmt.Sprint(last.Content)
		if strings.Contains(text, "slow") && !sawSlow && last.Role == "user" {
			sawSlow, first = true, true
		}
		c.mu.Unlock()
		switch {
		case first:
			c.slow <- struct{}{}
			<-release
			return
		case last.Role == "tool":
			chunk(map[string]any{"role": "assistant", "content": fmt.Sprintf("ran; user messages: %d", users)}, nil)
		case strings.Contains(text, "15!"):
			chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
				"function": map[string]any{"name": "evaluateJs", "arguments": `{"code":"1307674368000"}`}}}}, nil)
			chunk(map[string]any{}, "tool_calls")
			return
		default:
			chunk(map[string]any{"role": "assistant", "content": fmt.Sprintf("user messages: %d", users)}, nil)
		}
		chunk(map[string]any{}, "stop")
	})
	t.Cleanup(func() { close(release) }) // before the fake server closes
	return c
}

// last returns the messages of the latest request.
func (c *conversation) last() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests[len(c.requests)-1]
}

func (c *conversation) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.requests)
}

var sessionLine = regexp.MustCompile(`--chat --session ([0-9a-f]+)\n`)

// TestChatTurnApprovedInAnotherProcess: loom run --chat without a terminal
// stops at a turn whose code needs approval and exits; loom resume
// --approve in another process runs the code once, with the model seeing
// the earlier turn; the conversation, reopened with --session in a third
// process, holds the approved turn exactly once. While the turn waits, the
// session refuses new input and says how to answer. On SQLite and
// PostgreSQL.
func TestChatTurnApprovedInAnotherProcess(t *testing.T) {
	for _, st := range checkpointDBs(t) {
		t.Run(st.kind, func(t *testing.T) { chatTurnApprovedInAnotherProcess(t, st.db) })
	}
}

func chatTurnApprovedInAnotherProcess(t *testing.T, db string) {
	c := newConversation(t)
	if db == "" {
		db = filepath.Join(t.TempDir(), "cp.db")
	}
	file := writeFile(t, "loom.yaml", coderYAML)

	code, stdout, stderr := loomProcessIn(t, "hello\nCalculate 15!\nnever read\n", "run", file, "--chat", "--db", db)
	require.Equal(t, exitWaiting, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 2, stdout)
	require.Equal(t, "user messages: 1", lines[0])
	runID := lines[1]
	m := sessionLine.FindStringSubmatch(stderr)
	require.NotNil(t, m, "the stop names the session: %s", stderr)
	session := m[1]

	code, _, stderr = loomProcessIn(t, "next\n", "run", file, "--chat", "--session", session, "--db", db)
	require.Equal(t, exitWaiting, code, stderr)
	require.Contains(t, stderr, "its turn run "+runID+" waits for approval")
	require.Contains(t, stderr, "loom resume "+runID+" --approve")

	asked := c.count()
	code, stdout, stderr = loomProcess(t, "resume", runID, "--approve", "--db", db)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, "ran; user messages: 2\n", stdout, "the resumed turn's model call sees the earlier turn")
	require.Equal(t, asked+1, c.count(), "one model call after the approval")
	code, _, stderr = loomProcess(t, "resume", runID, "--approve", "--db", db)
	require.Equal(t, exitFailed, code, stderr)
	require.Contains(t, stderr, "already ended")

	c.requireApprovedOnce(t, file, session, db)
}

// requireApprovedOnce goes on with the conversation session of file in a
// new process, and checks that the model sees its two turns, "hello" and
// the approved "Calculate 15!", each once.
func (c *conversation) requireApprovedOnce(t *testing.T, file, session, db string) {
	t.Helper()
	code, stdout, stderr := loomProcessIn(t, "after\n", "run", file, "--chat", "--session", session, "--db", db)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, "user messages: 3\n", stdout)
	require.Equal(t, []string{
		"user: hello", "assistant: user messages: 1",
		"user: Calculate 15!", "assistant: <nil>",
		`tool: {"result":1307674368000,"logs":[]}`, "assistant: ran; user messages: 2",
		"user: after",
	}, c.last(), "the approved turn is in the conversation once")
}

// TestChatTurnKilledMidCallFinishedByResume: a chat's turn whose process
// is killed during its model call is left open; a new question in the
// session names it and how to finish it; loom resume --continue finishes
// it, and the conversation then holds it once.
func TestChatTurnKilledMidCallFinishedByResume(t *testing.T) {
	c := newConversation(t)
	db := filepath.Join(t.TempDir(), "cp.db")
	file := writeFile(t, "loom.yaml", coderYAML)

	cmd := exec.Command(os.Args[0], "run", file, "--chat", "--session", "s1", "--db", db)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stdin = strings.NewReader("hello\nslow one\n")
	var errs testkit.SyncBuffer
	cmd.Stderr = &errs
	require.NoError(t, cmd.Start())
	select {
	case <-c.slow:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("the slow question never reached the model: %s", errs.String())
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()

	code, _, stderr := loomProcessIn(t, "other\n", "run", file, "--chat", "--session", "s1", "--db", db)
	require.Equal(t, exitFailed, code, stderr)
	m := regexp.MustCompile(`loom resume ([0-9a-f]+) --continue`).FindStringSubmatch(stderr)
	require.NotNil(t, m, stderr)
	require.Contains(t, stderr, "stopped before it ended: send the same input again")

	code, stdout, stderr := loomProcess(t, "resume", m[1], "--continue", "--db", db)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, "user messages: 2\n", stdout)

	code, stdout, stderr = loomProcessIn(t, "other\n", "run", file, "--chat", "--session", "s1", "--db", db)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, "user messages: 3\n", stdout)
	require.Equal(t, []string{"user: hello", "assistant: user messages: 1", "user: slow one", "assistant: user messages: 2", "user: other"}, c.last())
}

// guardedChatYAML trips on long input and on an answer holding an AWS
// key, which it holds back until the output guardrail passed it.
const guardedChatYAML = `version: loom/v1
model: openai:gpt-test
entry: helper
agents:
  helper:
    type: ai
    guardrails:
      input:
        - builtin: max_input_size
          max_bytes: 40
      output:
        - builtin: deny_list
      hold: true
`

// TestChatTrippedTurnNotRemembered: in loom run --chat, a turn stopped by
// an input or an output guardrail is reported, the chat goes on, and the
// tripped turn is in no later turn's history, in this process or when
// the session is reopened in another; the chat's exit status says a turn
// failed. The refused answer, held, never reaches stdout.
func TestChatTrippedTurnNotRemembered(t *testing.T) {
	var mu sync.Mutex
	var last []string
	fakeChat(t, func(body chatBody, chunk func(delta, finish any)) {
		var users []string
		for _, m := range body.Messages {
			if m.Role == "user" {
				users = append(users, fmt.Sprint(m.Content))
			}
		}
		mu.Lock()
		last = users
		mu.Unlock()
		answer := fmt.Sprintf("user messages: %d", len(users))
		if strings.Contains(users[len(users)-1], "key") {
			answer = "the key is AKIAIOSFODNN7EXAMPLE"
		}
		chunk(map[string]any{"role": "assistant", "content": answer}, nil)
		chunk(map[string]any{}, "stop")
	})
	db := filepath.Join(t.TempDir(), "cp.db")
	file := writeFile(t, "loom.yaml", guardedChatYAML)

	code, stdout, stderr := loomProcessIn(t, "hello\n"+strings.Repeat("very long ", 10)+"\nyour key?\nafter\n", "run", file, "--chat", "--session", "g1", "--db", db)
	require.Equal(t, exitFailed, code, "a turn failed: %s", stderr)
	require.Contains(t, stderr, "max_input_size")
	require.Contains(t, stderr, "deny_list")
	require.NotContains(t, stdout, "AKIA", "the refused answer was held back")
	require.True(t, strings.HasPrefix(stdout, "user messages: 1\n"), stdout)
	require.True(t, strings.HasSuffix(stdout, "user messages: 2\n"), "the chat went on: %s", stdout)
	mu.Lock()
	require.Equal(t, []string{"hello", "after"}, last, "the tripped turns are not in the history")
	mu.Unlock()

	code, stdout, stderr = loomProcessIn(t, "again\n", "run", file, "--chat", "--session", "g1", "--db", db)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, "user messages: 3\n", stdout)
	mu.Lock()
	require.Equal(t, []string{"hello", "after", "again"}, last)
	mu.Unlock()
}

// TestChatApprovedOnTheTerminal: loom run --chat on a terminal asks for
// the approval of a turn's code on the same line editor; approved there,
// the turn is resumed through the session: the model sees the earlier
// turn, the next turn sees the approved one once, and so does the
// conversation reopened in another process.
func TestChatApprovedOnTheTerminal(t *testing.T) {
	c := newConversation(t)
	db := filepath.Join(t.TempDir(), "cp.db")
	file := writeFile(t, "loom.yaml", coderYAML)
	cmd, keys, out := onTerminal(t, "run", file, "--chat", "--session", "tty1", "--db", db)
	shows(t, out, "Session tty1")
	type step struct{ send, want string }
	for _, s := range []step{
		{"hello", "user messages: 1"},
		{"Calculate 15!", "Run it? [y/N]"},
		{"y", "ran; user messages: 2"},
	} {
		_, err := io.WriteString(keys, s.send+"\r")
		require.NoError(t, err)
		shows(t, out, s.want)
	}
	_, err := io.WriteString(keys, "/exit\r")
	require.NoError(t, err)
	require.NoError(t, cmd.Wait())
	c.requireApprovedOnce(t, file, "tty1", db)
}

// TestChatClearForgetsTheSession: /clear empties the stored conversation,
// so a later process reopening the session sees only what came after.
func TestChatClearForgetsTheSession(t *testing.T) {
	fakeOpenAI(t)
	db := filepath.Join(t.TempDir(), "cp.db")
	file := writeFile(t, "loom.yaml", "version: loom/v1\nmodel: openai:gpt-test\nagents:\n  helper: {type: ai}\n")
	code, stdout, stderr := loomProcessIn(t, "hello\n/clear\nagain\n", "run", file, "--chat", "--session", "c1", "--db", db)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, "user messages: 1\nuser messages: 1\n", stdout)
	require.Contains(t, stderr, "(conversation cleared)")
	code, stdout, stderr = loomProcessIn(t, "later\n", "run", file, "--chat", "--session", "c1", "--db", db)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, "user messages: 2\n", stdout)
}
