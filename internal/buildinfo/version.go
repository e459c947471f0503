// Package buildinfo reads loom's version from the running binary's build
// information, for `loom version` and the viewer's /api/info.
package buildinfo

import "runtime/debug"

// Version returns loom's module version from the build information:
// "v1.2.3" for a released build, "(devel)" for a local one.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	if info.Main.Path == "github.com/loomwork/loom" && info.Main.Version != "" {
		return info.Main.Version
	}
	for _, d := range info.Deps {
		if d.Path == "github.com/loomwork/loom" {
			return d.Version
		}
	}
	return "(devel)"
}
