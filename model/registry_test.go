package model_test

import (
	"context"
	"iter"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/stretchr/testify/require"
)

type fakeModel struct{ provider, name string }

func (f fakeModel) Provider() string { return f.provider }
func (f fakeModel) Name() string     { return f.name }
func (f fakeModel) Stream(context.Context, model.Request) iter.Seq2[model.Chunk, error] {
	return func(func(model.Chunk, error) bool) {}
}

func testRegistry(t *testing.T) *model.Registry {
	r := model.NewRegistry()
	for _, p := range []struct{ id, def string }{{"openai", "gpt-4o-mini"}, {"bedrock", "us.amazon.nova-lite-v1:0"}, {"open", "o-1"}, {"nodefault", ""}} {
		require.NoError(t, r.Register(model.Provider{ID: p.id, DefaultModel: p.def, Open: func(name string) (model.Model, error) {
			return fakeModel{p.id, name}, nil
		}}))
	}
	return r
}

func TestOpen(t *testing.T) {
	r := testRegistry(t)
	tests := []struct {
		id, provider, model, err string
	}{
		{id: "openai:gpt-4o", provider: "openai", model: "gpt-4o"},
		{id: "openai/gpt-4o", provider: "openai", model: "gpt-4o"},
		{id: "openai", provider: "openai", model: "gpt-4o-mini"},
		{id: " OpenAI:gpt-4o ", provider: "openai", model: "gpt-4o"},
		{id: "bedrock:us.amazon.nova-lite-v1:0", provider: "bedrock", model: "us.amazon.nova-lite-v1:0"},
		{id: "bedrock", provider: "bedrock", model: "us.amazon.nova-lite-v1:0"},
		{id: "openai/org/model:tag", provider: "openai", model: "org/model:tag"},
		{id: "openai:", err: `has a separator but no model name`},
		{id: ":gpt-4o", err: `names no provider`},
		{id: "", err: `names no provider`},
		{id: "openaix:gpt-4o", err: `unknown provider "openaix": known providers are bedrock, nodefault, open, openai`},
		{id: "opena", err: `unknown provider "opena"`},
		{id: "nodefault", err: `provider "nodefault" has no default model`},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			m, err := r.Open(tt.id)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.provider, m.Provider())
			require.Equal(t, tt.model, m.Name())
		})
	}
	_, err := r.Open("nope")
	require.ErrorIs(t, err, model.ErrUnknownProvider)
	var upe *model.UnknownProviderError
	require.ErrorAs(t, err, &upe)
	require.Equal(t, []string{"bedrock", "nodefault", "open", "openai"}, upe.Known)
}

func TestRegisterRejectsBadProviders(t *testing.T) {
	r := model.NewRegistry()
	require.ErrorContains(t, r.Register(model.Provider{ID: "a:b", Open: func(string) (model.Model, error) { return nil, nil }}), "contain no ':' or '/'")
	require.ErrorContains(t, r.Register(model.Provider{ID: "x"}), "no Open function")
}
