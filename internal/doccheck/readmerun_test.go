package doccheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/internal/testkit"
)

// answerServer speaks just enough of the OpenAI Chat Completions wire
// format for a README program: every request is answered, streamed, with
// the text answer.
func answerServer(t *testing.T, answer string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		content, _ := json.Marshal(answer)
		for _, chunk := range []string{
			`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":` + string(content) + `},"finish_reason":null}]}`,
			`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
			`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`,
			`[DONE]`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", chunk)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestREADMEProgramsRun builds every whole program (func main) the READMEs
// show, as a user pasting it would, and runs those on OpenAI against a
// local server speaking its wire format: each exits 0 and prints the
// model's answer with no error. A program on another provider is built
// only: the test has no server of that provider's format.
func TestREADMEProgramsRun(t *testing.T) {
	root := moduleRoot(t)
	pkgs := loomPackages(packageDirs(t, root))
	srv := answerServer(t, "6.5")
	overlay := map[string]string{}
	type prog struct{ name, dir, provider string }
	var progs []prog
	tmp := t.TempDir()
	for _, path := range readmes(t, root) {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, path)
		for i, m := range goBlock.FindAllStringSubmatch(string(b), -1) {
			if !strings.Contains(m[1], "func main()") {
				continue
			}
			src, _ := program(m[1], pkgs)
			src = strings.Replace(src, "package main\n", "package main\n\nimport _ \"github.com/loomwork/loom/model/providers\"\n", 1)
			file := filepath.Join(tmp, fmt.Sprintf("prog%d.go", len(progs)))
			require.NoError(t, os.WriteFile(file, []byte(src), 0o600))
			// The program is built inside the module, where it would be
			// pasted, through an overlay: nothing is written to the tree.
			dir := filepath.Join(root, "internal", "doccheck", fmt.Sprintf("readmeprog%d", len(progs)))
			overlay[filepath.Join(dir, "main.go")] = file
			provider := ""
			if p := regexp.MustCompile(`model\.Open\("([a-z-]+)`).FindStringSubmatch(m[1]); p != nil {
				provider = p[1]
			}
			progs = append(progs, prog{fmt.Sprintf("%s block %d", rel, i+1), dir, provider})
		}
	}
	require.GreaterOrEqual(t, len(progs), 2)
	ov, err := json.Marshal(map[string]any{"Replace": overlay})
	require.NoError(t, err)
	ovFile := filepath.Join(tmp, "overlay.json")
	require.NoError(t, os.WriteFile(ovFile, ov, 0o600))
	ran := 0
	for _, p := range progs {
		t.Run(p.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
			defer cancel()
			// Built as testkit.Binary builds, so a warm cache skips the link.
			bin, err := testkit.BinaryWith("./"+filepath.Base(p.dir), "-overlay", ovFile) // the test runs in internal/doccheck
			require.NoError(t, err)
			if p.provider != "openai" {
				return
			}
			ran++
			home := t.TempDir()
			run := exec.CommandContext(ctx, bin)
			run.Dir = home
			run.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + home, "XDG_CONFIG_HOME=" + home,
				"OPENAI_BASE_URL=" + srv.URL + "/v1", "OPENAI_API_KEY=sk-test-0123456789abcdef"}
			var stdout, stderr bytes.Buffer
			run.Stdout, run.Stderr = &stdout, &stderr
			require.NoError(t, run.Run(), "stdout: %s\nstderr: %s", stdout.String(), stderr.String())
			require.Contains(t, stdout.String(), "6.5", "the program prints the model's answer")
			require.True(t, strings.HasSuffix(stdout.String(), " <nil>\n"), "the program prints no error: %s", stdout.String())
		})
	}
	require.GreaterOrEqual(t, ran, 2, "the OpenAI programs ran")
}
