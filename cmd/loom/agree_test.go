package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestValidateAgreesWithRun: over a corpus of bad files
// (spec/testdata/bad, each listing the errors it must give on its
// "# want:" lines), loom validate fails exactly when loom run refuses the
// file before running it, with the same messages; and every error has
// file:line:col, its YAML path and a hint.
func TestValidateAgreesWithRun(t *testing.T) {
	fakeOpenAI(t)
	files, err := filepath.Glob("../../spec/testdata/bad/*.yaml")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 15)
	lineRE := regexp.MustCompile(`^(.+):(\d+):(\d+): (agents\.[^:]+|entry|version|model): (.+)$`)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			require.NoError(t, err)
			var want []string
			for _, l := range strings.Split(string(src), "\n") {
				if w, ok := strings.CutPrefix(l, "# want: "); ok {
					want = append(want, w)
				}
			}
			require.NotEmpty(t, want, "the corpus file lists what it must report")

			v := call(t, false, "", "validate", file)
			r := call(t, false, "", "run", file, "-i", "hi", "--db", filepath.Join(t.TempDir(), "cp.db"))
			require.Equal(t, exitInvalid, v.code, v.stdout)
			require.Equal(t, exitInvalid, r.code, r.stdout)
			// run names itself before the errors, as every command's errors do
			require.True(t, strings.HasPrefix(r.stderr, "loom run: "), r.stderr)
			require.Equal(t, v.stderr, strings.TrimPrefix(r.stderr, "loom run: "), "validate and run report the same errors")
			require.Empty(t, r.stdout, "run ran nothing")

			var errs []string
			for _, l := range strings.Split(strings.TrimSpace(v.stderr), "\n") {
				if m := lineRE.FindStringSubmatch(l); m != nil {
					require.Equal(t, file, m[1])
					require.Contains(t, m[5], "; ", "every error has a hint: %s", l)
					errs = append(errs, m[4]+": "+m[5])
				}
			}
			require.Len(t, errs, len(want), "every error, each once:\n%s", v.stderr)
			for i, w := range want {
				require.True(t, strings.HasPrefix(errs[i], w), "error %d:\n got %s\nwant %s…", i, errs[i], w)
			}
		})
	}
}
