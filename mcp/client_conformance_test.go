package mcp

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/internal/mcpconformance"
)

// clientKnownFailures are the client scenarios loom does not pass, each
// with the reason: one the Go SDK refuses by its RFC, one extension loom
// does not implement.
var clientKnownFailures = map[string]string{
	"auth/2025-03-26-oauth-metadata-backcompat": "the suite's authorization server publishes issuer <base>/oauth in the metadata served at <base>/.well-known/oauth-authorization-server; the Go SDK's auth package (v1.8.0) rejects metadata whose issuer differs from the URL it was discovered from, as RFC 8414 section 3.3 requires",
	"auth/cross-app-access-complete-flow":       "an extension (enterprise-managed authorization, ID-JAG token exchange), which neither loom nor the Go SDK's auth package implements",
}

func TestClientConformance(t *testing.T) {
	// Every client scenario of the suite, auth included (the suite runs its
	// own authorization servers), against mcp/internal/conformanceclient.
	dir := t.TempDir()
	bin := filepath.Join(dir, "conformanceclient")
	build := exec.Command("go", "build", "-o", bin, "./internal/conformanceclient")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "build the conformance client: %s", out)
	mcpconformance.Require(t, mcpconformance.RunClient(t, bin), clientKnownFailures)
}
