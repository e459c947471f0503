package providers

import (
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/anthropic"
	"github.com/loomwork/loom/model/gemini"
	"github.com/loomwork/loom/model/openai"
)

func init() {
	for _, p := range All() {
		model.Register(p)
	}
}

// All returns every built-in provider, in the order of the README table:
// the OpenAI family, then Anthropic and Gemini. Each Open reads the
// environment when called and fails at once, without a network call, when
// a required key is missing.
func All() []model.Provider {
	var ps []model.Provider
	for _, preset := range openai.Presets() {
		ps = append(ps, model.Provider{
			ID:           preset.ID,
			DefaultModel: preset.DefaultModel,
			KeyVars:      keyVars(preset),
			BaseURLVar:   preset.BaseURLVar,
			Open: func(name string) (model.Model, error) {
				return openai.NewFor(preset, name)
			},
		})
	}
	ps = append(ps,
		model.Provider{
			ID:           anthropic.ProviderID,
			DefaultModel: anthropic.DefaultModel,
			KeyVars:      anthropic.KeyVars(),
			BaseURLVar:   anthropic.BaseURLVar,
			Open: func(name string) (model.Model, error) {
				return anthropic.New(name)
			},
		},
		model.Provider{
			ID:           gemini.ProviderID,
			DefaultModel: gemini.DefaultModel,
			KeyVars:      gemini.KeyVars(),
			BaseURLVar:   gemini.BaseURLVar,
			Open: func(name string) (model.Model, error) {
				return gemini.New(name)
			},
		},
	)
	return ps
}

// keyVars is what a provider reports as its key variables: none for the
// providers that need no key (model.Provider documents KeyVars as empty for
// them), even though they send a key when one is set.
func keyVars(p openai.Preset) []string {
	if !p.KeyRequired {
		return nil
	}
	return p.KeyVars
}
