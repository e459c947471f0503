package openai

// Preset describes a provider that speaks the OpenAI Chat Completions API:
// OpenAI itself or a compatible service such as DeepSeek or Ollama. Every
// provider of the family runs on the same code; a preset only supplies its
// defaults and quirks.
type Preset struct {
	// ID is the provider id, as "deepseek".
	ID string
	// DefaultModel is used by model.Open when an id names no model; empty
	// when the provider has none (openai-compatible).
	DefaultModel string
	// DefaultBaseURL is the API root; empty when BaseURLVar must be set.
	DefaultBaseURL string
	// BaseURLVar is the environment variable that overrides the base URL.
	BaseURLVar string
	// KeyVars are the environment variables read for the API key, in order.
	KeyVars []string
	// KeyRequired makes a missing key an error at construction. Local
	// servers (Ollama, LM Studio) need none.
	KeyRequired bool
	// LegacyMaxTokens sends Options.MaxOutputTokens as "max_tokens", which
	// compatible servers understand, instead of OpenAI's
	// "max_completion_tokens", which its reasoning models require.
	LegacyMaxTokens bool
	// JSONObjectOnly marks a provider without json_schema response formats
	// (DeepSeek): structured output is asked for with {"type":"json_object"}
	// and the schema is given to the model in a system message.
	JSONObjectOnly bool
	// AddV1 appends "/v1" to a base URL given without a path, so
	// OLLAMA_BASE_URL=http://localhost:11434 works as users expect.
	AddV1 bool
	// SDKEnvironment also applies the SDK's own environment defaults
	// (OPENAI_ORG_ID, OPENAI_PROJECT_ID, OPENAI_CUSTOM_HEADERS). Only OpenAI
	// itself sets it, so those values never reach another provider.
	SDKEnvironment bool
}

// The presets of the family. Each function returns a fresh value, so callers
// may adjust their copy.

// OpenAIPreset is OpenAI's own API.
func OpenAIPreset() Preset {
	return Preset{
		ID:             "openai",
		DefaultModel:   "gpt-5.4-mini",
		DefaultBaseURL: "https://api.openai.com/v1",
		BaseURLVar:     "OPENAI_BASE_URL",
		KeyVars:        []string{"OPENAI_API_KEY"},
		KeyRequired:    true,
		SDKEnvironment: true,
	}
}

// DeepSeekPreset is DeepSeek's API.
func DeepSeekPreset() Preset {
	return Preset{
		ID:              "deepseek",
		DefaultModel:    "deepseek-chat",
		DefaultBaseURL:  "https://api.deepseek.com",
		BaseURLVar:      "DEEPSEEK_BASE_URL",
		KeyVars:         []string{"DEEPSEEK_API_KEY"},
		KeyRequired:     true,
		LegacyMaxTokens: true,
		JSONObjectOnly:  true,
	}
}

// OpenRouterPreset is OpenRouter's API; model names carry the upstream
// provider, as "openai/gpt-5.4-mini".
func OpenRouterPreset() Preset {
	return Preset{
		ID:              "openrouter",
		DefaultModel:    "openai/gpt-5.4-mini",
		DefaultBaseURL:  "https://openrouter.ai/api/v1",
		BaseURLVar:      "OPENROUTER_BASE_URL",
		KeyVars:         []string{"OPENROUTER_API_KEY", "OPEN_ROUTER_API_KEY"},
		KeyRequired:     true,
		LegacyMaxTokens: true,
	}
}

// XAIPreset is xAI's API.
func XAIPreset() Preset {
	return Preset{
		ID:              "xai",
		DefaultModel:    "grok-4.3",
		DefaultBaseURL:  "https://api.x.ai/v1",
		BaseURLVar:      "XAI_BASE_URL",
		KeyVars:         []string{"XAI_API_KEY"},
		KeyRequired:     true,
		LegacyMaxTokens: true,
	}
}

// OllamaPreset is a local Ollama server; it needs no key (OLLAMA_API_KEY is
// sent when set, for servers behind an authenticating proxy).
func OllamaPreset() Preset {
	return Preset{
		ID:              "ollama",
		DefaultModel:    "llama3.2",
		DefaultBaseURL:  "http://localhost:11434/v1",
		BaseURLVar:      "OLLAMA_BASE_URL",
		KeyVars:         []string{"OLLAMA_API_KEY"},
		LegacyMaxTokens: true,
		AddV1:           true,
	}
}

// LMStudioPreset is a local LM Studio server; it needs no key.
func LMStudioPreset() Preset {
	return Preset{
		ID:              "lmstudio",
		DefaultModel:    "llama-3.2-3b-instruct",
		DefaultBaseURL:  "http://localhost:1234/v1",
		BaseURLVar:      "LM_STUDIO_BASE_URL",
		KeyVars:         []string{"LM_STUDIO_API_KEY"},
		LegacyMaxTokens: true,
		AddV1:           true,
	}
}

// CompatiblePreset is any other OpenAI-compatible server (vLLM, llama.cpp,
// LiteLLM, a gateway): the base URL must be given by option or
// OPENAI_COMPATIBLE_BASE_URL, the key is optional
// (OPENAI_COMPATIBLE_API_KEY), and the model must be named.
func CompatiblePreset() Preset {
	return Preset{
		ID:              "openai-compatible",
		BaseURLVar:      "OPENAI_COMPATIBLE_BASE_URL",
		KeyVars:         []string{"OPENAI_COMPATIBLE_API_KEY"},
		LegacyMaxTokens: true,
	}
}

// Presets returns every preset of the family, OpenAI first.
func Presets() []Preset {
	return []Preset{OpenAIPreset(), DeepSeekPreset(), OpenRouterPreset(), XAIPreset(), OllamaPreset(), LMStudioPreset(), CompatiblePreset()}
}
