package openai_test

import (
	"errors"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/openai"
	"github.com/stretchr/testify/require"
)

// clearEnv unsets every variable the presets read, for the test's duration.
func clearEnv(t *testing.T) {
	for _, p := range openai.Presets() {
		for _, v := range append([]string{p.BaseURLVar}, p.KeyVars...) {
			t.Setenv(v, "")
		}
	}
}

func TestNewMissingKey(t *testing.T) {
	clearEnv(t)
	cases := []struct {
		preset openai.Preset
		vars   []string
	}{
		{openai.OpenAIPreset(), []string{"OPENAI_API_KEY"}},
		{openai.DeepSeekPreset(), []string{"DEEPSEEK_API_KEY"}},
		{openai.OpenRouterPreset(), []string{"OPENROUTER_API_KEY", "OPEN_ROUTER_API_KEY"}},
		{openai.XAIPreset(), []string{"XAI_API_KEY"}},
	}
	for _, c := range cases {
		t.Run(c.preset.ID, func(t *testing.T) {
			_, err := openai.NewFor(c.preset, "")
			require.ErrorIs(t, err, model.ErrMissingKey)
			var mk *model.MissingKeyError
			require.True(t, errors.As(err, &mk))
			require.Equal(t, c.vars, mk.Vars)
			for _, v := range c.vars {
				require.ErrorContains(t, err, v)
			}
		})
	}
}

func TestNewFromEnvironment(t *testing.T) {
	cases := []struct {
		name     string
		preset   openai.Preset
		env      map[string]string
		wantURL  string
		wantName string
	}{
		{"openai defaults", openai.OpenAIPreset(), map[string]string{"OPENAI_API_KEY": "k"}, "https://api.openai.com/v1", "gpt-5.4-mini"},
		{"openai base URL variable", openai.OpenAIPreset(), map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "https://gateway.example/v1"}, "https://gateway.example/v1", "gpt-5.4-mini"},
		{"openrouter second key name", openai.OpenRouterPreset(), map[string]string{"OPEN_ROUTER_API_KEY": "k"}, "https://openrouter.ai/api/v1", "openai/gpt-5.4-mini"},
		{"deepseek", openai.DeepSeekPreset(), map[string]string{"DEEPSEEK_API_KEY": "k"}, "https://api.deepseek.com", "deepseek-chat"},
		{"xai", openai.XAIPreset(), map[string]string{"XAI_API_KEY": "k"}, "https://api.x.ai/v1", "grok-4.3"},
		{"ollama needs no key", openai.OllamaPreset(), nil, "http://localhost:11434/v1", "llama3.2"},
		{"ollama base URL without /v1", openai.OllamaPreset(), map[string]string{"OLLAMA_BASE_URL": "http://gpu-box:11434"}, "http://gpu-box:11434/v1", "llama3.2"},
		{"lmstudio needs no key", openai.LMStudioPreset(), nil, "http://localhost:1234/v1", "llama-3.2-3b-instruct"},
		{"lmstudio base URL", openai.LMStudioPreset(), map[string]string{"LM_STUDIO_BASE_URL": "http://box:1234/v1"}, "http://box:1234/v1", "llama-3.2-3b-instruct"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			m, err := openai.NewFor(c.preset, "")
			require.NoError(t, err)
			require.Equal(t, c.wantURL, m.BaseURL())
			require.Equal(t, c.wantName, m.Name())
			require.Equal(t, c.preset.ID, m.Provider())
		})
	}
}

func TestNewCompatible(t *testing.T) {
	clearEnv(t)
	_, err := openai.NewFor(openai.CompatiblePreset(), "qwen3")
	require.ErrorIs(t, err, openai.ErrMissingBaseURL)
	require.ErrorContains(t, err, "OPENAI_COMPATIBLE_BASE_URL")

	_, err = openai.NewFor(openai.CompatiblePreset(), "")
	require.ErrorIs(t, err, model.ErrInvalidRequest, "openai-compatible has no default model")

	t.Setenv("OPENAI_COMPATIBLE_BASE_URL", "http://vllm:8000/v1")
	m, err := openai.NewFor(openai.CompatiblePreset(), "qwen3")
	require.NoError(t, err, "the key is optional")
	require.Equal(t, "http://vllm:8000/v1", m.BaseURL())

	_, err = openai.NewFor(openai.CompatiblePreset(), "qwen3", model.WithBaseURL("vllm:8000"))
	require.ErrorContains(t, err, "not an absolute URL")
}

func TestOptionOverridesEnvironment(t *testing.T) {
	clearEnv(t)
	t.Setenv("OPENAI_BASE_URL", "https://env.example/v1")
	m, err := openai.New("gpt-4.1", model.WithAPIKey("k"), model.WithBaseURL("https://option.example/v1"))
	require.NoError(t, err)
	require.Equal(t, "https://option.example/v1", m.BaseURL())
	require.Equal(t, "gpt-4.1", m.Name())
}
