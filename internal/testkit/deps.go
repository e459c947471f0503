package testkit

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Deps returns the import paths pkg links, itself included, as `go list
// -deps` reports them for a build without tests.
func Deps(t testing.TB, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	var stderr []byte
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = ee.Stderr
	}
	require.NoError(t, err, "go list -deps %s: %s", pkg, stderr)
	return strings.Fields(string(out))
}

// RequireNoDeps fails t when pkg links a package whose import path starts
// with one of the prefixes, naming the package and the prefix.
func RequireNoDeps(t testing.TB, pkg string, prefixes ...string) {
	t.Helper()
	for _, d := range Deps(t, pkg) {
		for _, p := range prefixes {
			if d == p || strings.HasPrefix(d, p+"/") {
				t.Errorf("%s links %s, which it must not (it matches %s)", pkg, d, p)
			}
		}
	}
}
