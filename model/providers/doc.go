// Package providers registers every built-in model provider with
// [model.Register] when it is imported:
//
//	import _ "github.com/loomwork/loom/model/providers"
//
//	m, err := model.Open("anthropic:claude-sonnet-5-5")
//
// The provider packages (model/openai, model/anthropic, model/gemini) do not
// register themselves, so a program that imports only one of them leaves the
// default registry untouched; this package's init is the one place that
// writes to it. [All] returns the same table for programs that keep their
// own [model.Registry].
//
// The ids, default models and variables are listed in this package's
// README.md and by [All].
package providers
