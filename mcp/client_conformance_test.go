package mcp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// clientSuite returns Node 22 and the conformance suite's entry point:
// from LOOM_NODE22 and LOOM_MCP_CONFORMANCE when set, else as .ci/mcp.sh
// installs them in .ci/mcp/node_modules. It skips the test when they are
// missing, except in CI.
func clientSuite(t *testing.T) (node, script string) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", ".ci", "mcp", "node_modules")
	node = filepath.Join(dir, ".bin", "node")
	script = filepath.Join(dir, "@modelcontextprotocol", "conformance", "dist", "index.js")
	if v := os.Getenv("LOOM_NODE22"); v != "" {
		node = v
	}
	if v := os.Getenv("LOOM_MCP_CONFORMANCE"); v != "" {
		script = v
	}
	for _, f := range []string{node, script} {
		if _, err := os.Stat(f); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("the MCP conformance suite is missing (%v): .ci/mcp.sh installs it with npm ci in .ci/mcp", err)
			}
			t.Skipf("MCP conformance suite not installed (%s missing): run `npm ci --prefix .ci/mcp`, or set LOOM_MCP_CONFORMANCE to the suite's dist/index.js and LOOM_NODE22 to a Node 22 binary, to run this test", f)
		}
	}
	return node, script
}

// clientCheck is one check of a scenario, as the suite writes it.
type clientCheck struct {
	ID          string `json:"id"`
	Status      string `json:"status"`
	Description string `json:"description"`
}

// clientKnownFailures are the client scenarios that cannot pass for a
// reason outside loom, with the reason.
var clientKnownFailures = map[string]string{
	"auth/2025-03-26-oauth-metadata-backcompat": "the suite's authorization server publishes issuer <base>/oauth in the metadata served at <base>/.well-known/oauth-authorization-server; the Go SDK's auth package (v1.8.0) rejects metadata whose issuer differs from the URL it was discovered from, as RFC 8414 section 3.3 requires",
	"auth/cross-app-access-complete-flow":       "an extension (enterprise-managed authorization, ID-JAG token exchange), which neither loom nor the Go SDK's auth package implements",
}

func TestClientConformance(t *testing.T) {
	// Every client scenario of the suite, auth included (the suite runs its
	// own authorization servers), against mcp/internal/conformanceclient.
	node, script := clientSuite(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "conformanceclient")
	build := exec.Command("go", "build", "-o", bin, "./internal/conformanceclient")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "build the conformance client: %s", out)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	list, err := exec.CommandContext(ctx, node, script, "list", "--client").Output()
	require.NoError(t, err)
	var scenarios []string
	for _, l := range strings.Split(string(list), "\n") {
		if l, ok := strings.CutPrefix(strings.TrimSpace(l), "- "); ok {
			scenarios = append(scenarios, strings.Fields(l)[0])
		}
	}
	require.NotEmpty(t, scenarios)

	results := filepath.Join(dir, "results")
	cmd := exec.CommandContext(ctx, node, script, "client", "--command", bin, "--suite", "all", "-o", results)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	cmd.Dir = dir
	log, _ := cmd.CombinedOutput() // failing scenarios exit non-zero; the results say which
	checks := map[string][]clientCheck{}
	err = filepath.WalkDir(results, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "checks.json" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var cs []clientCheck
		if err := json.Unmarshal(b, &cs); err != nil {
			return err
		}
		rel, err := filepath.Rel(results, filepath.Dir(path))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		for _, s := range scenarios {
			if strings.HasPrefix(rel, s+"-") {
				checks[s] = cs
			}
		}
		return nil
	})
	require.NoError(t, err)

	passed := 0
	sort.Strings(scenarios)
	for _, s := range scenarios {
		cs, ok := checks[s]
		if !ok {
			t.Errorf("scenario %s wrote no results; suite output:\n%s", s, log)
			continue
		}
		var failed []string
		for _, c := range cs {
			if c.Status == "FAILURE" {
				failed = append(failed, c.ID+": "+c.Description)
			}
		}
		why, known := clientKnownFailures[s]
		switch {
		case len(failed) == 0:
			passed++
			if known {
				t.Errorf("scenario %s passes but is listed as unable to (%s): remove it from clientKnownFailures", s, why)
			}
		case known:
			t.Logf("scenario %s fails for a reason outside loom: %s", s, why)
		default:
			t.Errorf("scenario %s fails:\n  %s", s, strings.Join(failed, "\n  "))
		}
	}
	t.Logf("%d of %d client scenarios pass", passed, len(scenarios))
}
