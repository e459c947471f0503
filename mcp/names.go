package mcp

import (
	"github.com/loomwork/loom/model"
)

// wireName is the name a model calls the server's tool by: the prefix and
// the tool's name, made valid for every provider.
func wireName(prefix, name string) string {
	if prefix != "" {
		name = prefix + "_" + name
	}
	return model.ToolNameFor(name)
}
