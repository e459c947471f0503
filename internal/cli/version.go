package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version describes the build: the module version (or "(devel)"), the
// commit when known, and the Go version.
func Version(name string) string {
	v, rev := "(devel)", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 7 {
				rev = " commit " + s.Value[:7]
			}
		}
	}
	return fmt.Sprintf("%s %s%s %s", name, v, rev, runtime.Version())
}
