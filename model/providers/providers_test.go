package providers_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/providers"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// allVars are every variable the providers read, cleared by each test.
var allVars = []string{
	"OPENAI_API_KEY", "OPENAI_BASE_URL", "DEEPSEEK_API_KEY", "DEEPSEEK_BASE_URL",
	"OPENROUTER_API_KEY", "OPEN_ROUTER_API_KEY", "OPENROUTER_BASE_URL", "XAI_API_KEY", "XAI_BASE_URL",
	"OLLAMA_API_KEY", "OLLAMA_BASE_URL", "LM_STUDIO_API_KEY", "LM_STUDIO_BASE_URL",
	"OPENAI_COMPATIBLE_API_KEY", "OPENAI_COMPATIBLE_BASE_URL",
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL",
	"GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL",
	"OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "OPENAI_CUSTOM_HEADERS",
}

func clearEnv(t *testing.T) {
	for _, v := range allVars {
		t.Setenv(v, "")
	}
}

var table = []struct {
	id, defaultModel string
	keyVars          []string // required; nil for none
	baseURLVar       string
}{
	{"openai", "gpt-5.4-mini", []string{"OPENAI_API_KEY"}, "OPENAI_BASE_URL"},
	{"deepseek", "deepseek-chat", []string{"DEEPSEEK_API_KEY"}, "DEEPSEEK_BASE_URL"},
	{"openrouter", "openai/gpt-5.4-mini", []string{"OPENROUTER_API_KEY", "OPEN_ROUTER_API_KEY"}, "OPENROUTER_BASE_URL"},
	{"xai", "grok-4.3", []string{"XAI_API_KEY"}, "XAI_BASE_URL"},
	{"ollama", "llama3.2", nil, "OLLAMA_BASE_URL"},
	{"lmstudio", "llama-3.2-3b-instruct", nil, "LM_STUDIO_BASE_URL"},
	{"openai-compatible", "", nil, "OPENAI_COMPATIBLE_BASE_URL"},
	{"anthropic", "claude-sonnet-5-5", []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"}, "ANTHROPIC_BASE_URL"},
	{"gemini", "gemini-flash-latest", []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"}, "GOOGLE_GEMINI_BASE_URL"},
}

func TestRegistered(t *testing.T) {
	var ids []string
	for _, p := range model.Providers() {
		ids = append(ids, p.ID)
	}
	for _, row := range table {
		require.Contains(t, ids, row.id)
		p, ok := lookup(row.id)
		require.True(t, ok)
		require.Equal(t, row.defaultModel, p.DefaultModel)
		require.Equal(t, row.keyVars, p.KeyVars)
		require.Equal(t, row.baseURLVar, p.BaseURLVar)
	}
	require.Len(t, providers.All(), len(table))
}

func lookup(id string) (model.Provider, bool) {
	for _, p := range model.Providers() {
		if p.ID == id {
			return p, true
		}
	}
	return model.Provider{}, false
}

func TestOpenEveryID(t *testing.T) {
	for _, row := range table {
		t.Run(row.id, func(t *testing.T) {
			clearEnv(t)
			if len(row.keyVars) > 0 {
				// The last listed variable is enough.
				t.Setenv(row.keyVars[len(row.keyVars)-1], "test-key")
			}
			if row.id == "openai-compatible" {
				t.Setenv("OPENAI_COMPATIBLE_BASE_URL", "http://vllm.local:8000/v1")
			}
			if row.defaultModel != "" {
				m, err := model.Open(row.id)
				require.NoError(t, err)
				require.Equal(t, row.id, m.Provider())
				require.Equal(t, row.defaultModel, m.Name())
			}
			for _, sep := range []string{":", "/"} {
				m, err := model.Open(row.id + sep + "some-model:v1")
				require.NoError(t, err)
				require.Equal(t, row.id, m.Provider())
				require.Equal(t, "some-model:v1", m.Name())
			}
		})
	}
}

func TestOpenMissingKey(t *testing.T) {
	for _, row := range table {
		if row.keyVars == nil {
			continue
		}
		t.Run(row.id, func(t *testing.T) {
			clearEnv(t)
			_, err := model.Open(row.id)
			require.ErrorIs(t, err, model.ErrMissingKey)
			var mk *model.MissingKeyError
			require.True(t, errors.As(err, &mk))
			require.Equal(t, row.id, mk.Provider)
			for _, v := range row.keyVars {
				require.ErrorContains(t, err, v, "the error names the variable to set")
			}
		})
	}
}

func TestOpenWithoutKey(t *testing.T) {
	for _, id := range []string{"ollama", "lmstudio"} {
		t.Run(id, func(t *testing.T) {
			clearEnv(t)
			m, err := model.Open(id + ":qwen3")
			require.NoError(t, err, "local servers need no key")
			require.Equal(t, "qwen3", m.Name())
		})
	}
	t.Run("openai-compatible needs its base URL", func(t *testing.T) {
		clearEnv(t)
		_, err := model.Open("openai-compatible:qwen3")
		require.ErrorContains(t, err, "OPENAI_COMPATIBLE_BASE_URL")
		_, err = model.Open("openai-compatible")
		require.ErrorContains(t, err, "openai-compatible:MODEL", "no default model: the error says how to name one")
	})
}

// TestReadmeTable checks both provider tables, this package's and the
// repository's, against the registry, the one source of truth.
func TestReadmeTable(t *testing.T) {
	for _, path := range []string{"README.md", filepath.Join("..", "..", "README.md")} {
		t.Run(path, func(t *testing.T) { checkTable(t, path) })
	}
}

func checkTable(t *testing.T, path string) {
	readme, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(readme)
	if _, after, ok := strings.Cut(text, "<!-- providers-table -->"); ok {
		text, _, _ = strings.Cut(after, "<!-- /providers-table -->")
	}
	rows := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "| `") {
			id := strings.Trim(strings.TrimSpace(strings.Split(line, "|")[1]), "`")
			rows[id] = line
		}
	}
	require.Len(t, rows, len(providers.All()), "one README row per provider")
	for _, p := range providers.All() {
		line, ok := rows[p.ID]
		require.True(t, ok, "README has no row for %s", p.ID)
		cells := strings.Split(line, "|")
		if p.DefaultModel != "" {
			require.Equal(t, "`"+p.DefaultModel+"`", strings.TrimSpace(cells[2]), p.ID)
		}
		for _, v := range p.KeyVars {
			require.Contains(t, cells[3], "`"+v+"`", p.ID)
		}
		require.Contains(t, cells[4], "`"+p.BaseURLVar+"`", p.ID)
	}
}
