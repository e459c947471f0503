package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/internal/cli"
	"github.com/loomwork/loom/internal/jsonschema"
)

// chatBody is what the fake endpoints read of a Chat Completions request.
type chatBody struct {
	Messages []struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	ResponseFormat any `json:"response_format"`
}

// fakeChat is a Chat Completions endpoint streaming Server-Sent Events:
// reply writes each chunk's delta and finish reason. The openai provider
// is pointed at it, with a key.
func fakeChat(t *testing.T, reply func(body chatBody, chunk func(delta, finish any))) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body chatBody
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		reply(body, func(delta any, finish any) {
			b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "fake",
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
		})
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
	return srv
}

// fakeOpenAI is a Chat Completions endpoint: asked about "15!" it calls
// evaluateJs; given a tool result it answers with it; otherwise it says
// how many user messages it saw.
func fakeOpenAI(t *testing.T) *httptest.Server {
	t.Helper()
	return fakeChat(t, func(body chatBody, chunk func(delta, finish any)) {
		last := body.Messages[len(body.Messages)-1]
		text := fmt.Sprint(last.Content)
		switch {
		case last.Role == "tool":
			var res struct {
				Result json.RawMessage `json:"result"`
			}
			_ = json.Unmarshal([]byte(text), &res)
			if len(res.Result) == 0 {
				chunk(map[string]any{"role": "assistant", "content": "refused: " + text}, nil)
				chunk(map[string]any{}, "stop")
				return
			}
			chunk(map[string]any{"role": "assistant", "content": "15! = "}, nil)
			chunk(map[string]any{"content": string(res.Result)}, nil)
			chunk(map[string]any{}, "stop")
		case strings.Contains(text, "15!"):
			args, _ := json.Marshal(map[string]string{"code": "let f = 1;\nfor (let i = 2; i <= 15; i++) f *= i;\nf"})
			chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
				"function": map[string]any{"name": "evaluateJs", "arguments": string(args)}}}}, nil)
			chunk(map[string]any{}, "tool_calls")
		default:
			users := 0
			for _, m := range body.Messages {
				if m.Role == "user" {
					users++
				}
			}
			answer := fmt.Sprintf("user messages: %d", users)
			if body.ResponseFormat != nil {
				b, _ := json.Marshal(map[string]string{"message": answer})
				answer = string(b)
			}
			chunk(map[string]any{"role": "assistant", "content": answer}, nil)
			chunk(map[string]any{}, "stop")
		}
	})
}

const coderYAML = `version: loom/v1
model: openai:gpt-test
entry: coder
agents:
  coder:
    type: code_execution
    approval: ask
`

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

type result struct {
	code           int
	stdout, stderr string
}

// call runs the command in this process with stdin as typed input.
func call(t *testing.T, terminal bool, stdin string, args ...string) result {
	t.Helper()
	var out, errOut strings.Builder
	con := console{in: bufio.NewReader(strings.NewReader(stdin)), terminal: terminal, getenv: os.Getenv}
	code := runSpec(t.Context(), args, &out, &errOut, con)
	return result{code, out.String(), errOut.String()}
}

func TestValidate(t *testing.T) {
	good := writeFile(t, "loom.yaml", coderYAML)
	bad := writeFile(t, "loom.yaml", "version: loom/v1\nagents:\n  a:\n    type: ai\n    instrutions: Hi.\n    tools: [serch]\n  b:\n    type: sequence\n    steps: a\n")
	badModel := writeFile(t, "loom.yaml", "version: loom/v1\nmodel: nosuch:x\nagents:\n  a: {type: ai}\n")
	tests := []struct {
		name         string
		args         []string
		code         int
		stdout, errs string
	}{
		{"valid", []string{"validate", good}, 0, good + ": valid\nmodels: openai:gpt-test (each reached at its provider's API)\n", ""},
		{"every error listed", []string{"validate", bad}, 2, "", bad + `:5:5: agents.a.instrutions: unknown key "instrutions"; did you mean instructions?` + "\n" +
			bad + `:6:13: agents.a.tools[0]: unknown agent or tool "serch"; declare it under agents, or register it in Go` + "\n" +
			bad + `:9:12: agents.b.steps: wrong type: want a list, got the string "a"; write a list: [a, b] or one '- item' a line` + "\n"},
		{"unknown provider, no key needed", []string{"validate", badModel}, 2, "", badModel + `:4:3: agents.a: model nosuch:x: unknown provider: "nosuch"; name a model as provider:model, the provider one of anthropic, deepseek, gemini, lmstudio, ollama, openai, openai-compatible, openrouter, xai` + "\n"},
		{"missing file", []string{"validate", "/nonexistent/loom.yaml"}, 2, "", "/nonexistent/loom.yaml: cannot read the file: no such file or directory\n"},
		{"no file", []string{"validate"}, 2, "", "loom validate: give one file: loom validate FILE\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, false, "", tc.args...)
			require.Equal(t, tc.code, res.code)
			require.Equal(t, tc.stdout, res.stdout)
			require.Equal(t, tc.errs, res.stderr)
		})
	}
}

func TestValidateConnectsToNoMCPServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("validate reached the MCP server") }))
	defer srv.Close()
	file := writeFile(t, "loom.yaml", `version: loom/v1
model: openai:gpt-test
entry: helper
agents:
  local: {type: mcp, command: [/nonexistent/mcp-server, --stdio]}
  remote: {type: mcp, url: "`+srv.URL+`/mcp", headers_env: {Authorization: UNSET_TOKEN}}
  helper: {type: ai, tools: [local, remote]}
`)
	res := call(t, false, "", "validate", file)
	require.Equal(t, 0, res.code, res.stderr)
	listing := `  local: command ["/nonexistent/mcp-server","--stdio"]
  remote: url ` + srv.URL + `/mcp headers ["Authorization: $UNSET_TOKEN"]
models: openai:gpt-test (each reached at its provider's API)
`
	require.Equal(t, file+": valid\nwhen it runs, it starts or reaches (not trusted yet: loom trust "+file+" allows them):\n"+listing, res.stdout)
	trustFile(t, file)
	res = call(t, false, "", "validate", file)
	require.Equal(t, file+": valid\nwhen it runs, it starts or reaches (trusted):\n"+listing, res.stdout)
}

func TestValidateCallsNoModel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("validate called the model") }))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	res := call(t, false, "", "validate", writeFile(t, "loom.yaml", coderYAML))
	require.Equal(t, 0, res.code, res.stderr)
}

func TestSchemaCommand(t *testing.T) {
	res := call(t, false, "", "schema")
	require.Equal(t, 0, res.code)
	_, err := jsonschema.Compile([]byte(res.stdout))
	require.NoError(t, err)
	require.Equal(t, 2, call(t, false, "", "schema", "extra").code)
}

func TestRunAsksOnTheTerminal(t *testing.T) {
	fakeOpenAI(t)
	file := writeFile(t, "loom.yaml", coderYAML)
	db := filepath.Join(t.TempDir(), "cp.db")
	res := call(t, true, "y\n", "run", file, "-i", "Calculate 15!", "--db", db)
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, "15! = 1307674368000\n", res.stdout)
	require.Contains(t, res.stderr, "The agent wants to run this code:\n    let f = 1;\n")
	require.Contains(t, res.stderr, "Run it? [y/N] ")
}

func TestRunStopsWithoutATerminalAndResumes(t *testing.T) {
	fakeOpenAI(t)
	file := writeFile(t, "loom.yaml", coderYAML)
	db := filepath.Join(t.TempDir(), "cp.db")
	res := call(t, false, "", "run", file, "-i", "Calculate 15!", "--db", db)
	require.Equal(t, exitWaiting, res.code, res.stderr)
	id := strings.TrimSpace(res.stdout)

	for _, bad := range [][]string{
		{"resume", id, "--db", db},
		{"resume", id, "--approve", "--deny", "--db", db},
		{"resume", id, "--answer", "{not json", "--db", db},
		{"resume", "../etc", "--approve", "--db", db},
		{"resume", id, "--answer", `{"approved":true}`, "--reason", "x", "--db", db},
	} {
		require.Equal(t, exitInvalid, call(t, false, "", bad...).code, "%v", bad)
	}
	res = call(t, false, "", "resume", id, "--deny", "--reason", "not today", "--db", db)
	require.Equal(t, cli.ExitDeclined, res.code, "no computed answer: the exit table's status; %s", res.stderr)
	require.Contains(t, res.stderr, "loom resume: no computed answer: the last snippet was declined")
	require.True(t, strings.HasPrefix(res.stdout, "refused: "), res.stdout)
	require.Contains(t, res.stdout, "not today")
	res = call(t, false, "", "resume", id, "--approve", "--db", db)
	require.Equal(t, exitFailed, res.code, "a run resumes once")
}

func TestRunUsage(t *testing.T) {
	file := writeFile(t, "loom.yaml", coderYAML)
	for _, args := range [][]string{
		{"run"},
		{"run", file, "--chat", "-i", "x"},
		{"run", file, "--timeout", "-1s"},
		{"run", file, "--bogus"},
	} {
		res := call(t, false, "", args...)
		require.Equal(t, exitInvalid, res.code, "%v", args)
		require.Contains(t, res.stderr, "loom run: ")
	}
	res := call(t, false, "", "run", writeFile(t, "loom.yaml", "version: loom/v1\nagents: {a: {type: ai, max_turns: x}}\n"), "-i", "hi")
	require.Equal(t, exitInvalid, res.code)
	require.Contains(t, res.stderr, "agents.a.max_turns: wrong type")
}

func TestRunMissingKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	res := call(t, false, "", "run", writeFile(t, "loom.yaml", coderYAML), "-i", "hi", "--db", filepath.Join(t.TempDir(), "cp.db"))
	require.Equal(t, exitInvalid, res.code)
	require.Contains(t, res.stderr, "loom run: ")
	require.Contains(t, res.stderr, "set OPENAI_API_KEY in the environment or in a .env.local file; looked in, in order:")
	require.NotContains(t, res.stderr, "WithAPIKey")
}

func TestChatRemembers(t *testing.T) {
	fakeOpenAI(t)
	file := writeFile(t, "loom.yaml", "version: loom/v1\nmodel: openai:gpt-test\nagents:\n  helper: {type: ai}\n")
	res := call(t, false, "hello\nagain\n", "run", file, "--chat", "--db", filepath.Join(t.TempDir(), "cp.db"))
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, "user messages: 1\nuser messages: 2\n", res.stdout)
}

func TestAIGNEFolders(t *testing.T) {
	res := call(t, false, "", "validate", "../../spec/testdata/aigne")
	require.Equal(t, 0, res.code, res.stderr)
	res = call(t, false, "", "validate", "../../spec/testdata/aigne-unsupported")
	require.Equal(t, exitInvalid, res.code)
	require.Contains(t, res.stderr, `AIGNE's mcp_server has no loom equivalent`)

	fakeOpenAI(t)
	res = call(t, false, "", "run", "../../spec/testdata/aigne", "-i", "hello", "--db", filepath.Join(t.TempDir(), "cp.db"))
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, "user messages: 1\n", res.stdout, "the sequence's answer: the translator's output")

	// The .env.local read is the AIGNE folder's own, not its parent's.
	dir := filepath.Join(t.TempDir(), "aigne")
	require.NoError(t, os.CopyFS(dir, os.DirFS("../../spec/testdata/aigne")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".env.local"), []byte("OPENAI_API_KEY=sk-test-0123456789abcdef\n"), 0o600))
	t.Setenv("OPENAI_API_KEY", "") // restored after the test, which .env.local sets it in
	require.NoError(t, os.Unsetenv("OPENAI_API_KEY"))
	res = call(t, false, "", "run", dir, "-i", "hello", "--db", filepath.Join(t.TempDir(), "cp.db"))
	require.Equal(t, 0, res.code, res.stderr)
}

// A folder given as FILE names its loom.yaml (an AIGNE folder is
// imported, above), whose folder's .env.local is read; every command
// refuses a folder holding neither, naming both.
func TestFolderNamesItsLoomFile(t *testing.T) {
	fakeOpenAI(t)
	file := writeFile(t, "loom.yaml", "version: loom/v1\nmodel: openai:gpt-test\nagents:\n  helper: {type: ai}\n")
	dir := filepath.Dir(file)
	res := call(t, false, "", "validate", dir)
	require.Equal(t, 0, res.code, res.stderr)
	require.True(t, strings.HasPrefix(res.stdout, file+": valid\n"), res.stdout)
	res = call(t, false, "", "run", dir, "-i", "hello", "--db", filepath.Join(t.TempDir(), "cp.db"))
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, "user messages: 1\n", res.stdout)

	// The folder's .env.local is the one read, as a file's folder's is.
	t.Setenv("OPENAI_API_KEY", "") // restored after the test, which .env.local sets it in
	require.NoError(t, os.Unsetenv("OPENAI_API_KEY"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".env.local"), []byte("OPENAI_API_KEY=sk-test-0123456789abcdef\n"), 0o600))
	res = call(t, false, "", "run", dir, "-i", "hello", "--db", filepath.Join(t.TempDir(), "cp.db"))
	require.Equal(t, 0, res.code, res.stderr)

	empty := t.TempDir()
	for _, args := range [][]string{
		{"validate", empty}, {"trust", empty}, {"run", empty, "-i", "x"}, {"serve", empty}, {"mcp", "serve", empty},
	} {
		code, _, stderr := runLoom(t, args...)
		require.Equal(t, exitInvalid, code, "%v: %s", args, stderr)
		require.Contains(t, stderr, empty+" is a folder with neither loom.yaml nor aigne.yaml in it: give the project file, as "+filepath.Join(empty, "loom.yaml"), args)
	}
}

const graphYAML = `version: loom/v1
model: openai:gpt-test
entry: review
agents:
  writer: {type: ai}
  review:
    type: graph
    entry: draft
    nodes:
      draft: {agent: writer}
      approve: {human: {kind: approval, prompt: Publish?, show: [draft]}}
    edges:
      - {from: draft, to: approve}
      - {from: approve, branch: "state.approve.approved ? 'end' : 'draft'", targets: [end, draft]}
`

func TestRunGraphStopsAndResumes(t *testing.T) {
	fakeOpenAI(t)
	file := writeFile(t, "loom.yaml", graphYAML)
	db := filepath.Join(t.TempDir(), "cp.db")
	res := call(t, false, "", "run", file, "-i", "otters", "--db", db)
	require.Equal(t, exitWaiting, res.code, res.stderr)
	id := strings.TrimSpace(res.stdout)
	require.Contains(t, res.stderr, "waits for approval "+id+".1.2.1?1:\nPublish?\n  draft: user messages: 1\n")
	require.Contains(t, res.stderr, "continue it with: loom resume "+id+" --approve (or --deny)")

	res = call(t, false, "", "resume", id, "--approve", "--db", db)
	require.Equal(t, exitOK, res.code, res.stderr)
	require.JSONEq(t, `{"message":"otters","draft":{"message":"user messages: 1"},"approve":{"approved":true}}`, res.stdout)
	res = call(t, false, "", "resume", id, "--approve", "--db", db)
	require.Equal(t, exitFailed, res.code, "a graph resumes once: %s", res.stderr)
}

func TestRunGraphAsksOnTheTerminal(t *testing.T) {
	fakeOpenAI(t)
	file := writeFile(t, "loom.yaml", graphYAML)
	res := call(t, true, "n\ny\n", "run", file, "-i", "otters", "--db", filepath.Join(t.TempDir(), "cp.db"))
	require.Equal(t, exitOK, res.code, res.stderr)
	require.Equal(t, 2, strings.Count(res.stderr, "Publish?\n  draft: user messages: 1\n[y/N] "), "declined once, the draft is written again and asked again")
	require.JSONEq(t, `{"message":"otters","draft":{"message":"user messages: 1"},"approve":{"approved":true}}`, res.stdout)
}

// loom run decides its exit status as the example programs do, by the
// exit table: an answer cut at the output token limit exits 9 and says
// so, unless --allow-truncated accepts it.
func TestRunTruncatedAnswer(t *testing.T) {
	fakeChat(t, func(_ chatBody, chunk func(delta, finish any)) {
		chunk(map[string]any{"role": "assistant", "content": "half an ans"}, nil)
		chunk(map[string]any{}, "length")
	})
	file := writeFile(t, "loom.yaml", "version: loom/v1\nmodel: openai:gpt-test\nagents:\n  helper: {type: ai}\n")
	db := filepath.Join(t.TempDir(), "cp.db")
	res := call(t, false, "", "run", file, "-i", "hi", "--db", db)
	require.Equal(t, cli.ExitTruncated, res.code, res.stderr)
	require.Equal(t, "half an ans\n", res.stdout, "the cut answer is still shown")
	require.Contains(t, res.stderr, "loom run: the answer above was cut at the model's output token limit")
	res = call(t, false, "", "run", file, "-i", "hi", "--db", db, "--allow-truncated")
	require.Equal(t, exitOK, res.code, res.stderr)
	require.Empty(t, res.stderr)
}
