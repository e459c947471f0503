package anthropic_test

import (
	"errors"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/anthropic"
	"github.com/stretchr/testify/require"
)

func TestNewEnvironment(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "")
	t.Setenv("ANTHROPIC_BASE_URL", "")

	_, err := anthropic.New("")
	require.ErrorIs(t, err, model.ErrMissingKey)
	var mk *model.MissingKeyError
	require.True(t, errors.As(err, &mk))
	require.Equal(t, []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"}, mk.Vars)
	require.ErrorContains(t, err, "ANTHROPIC_API_KEY")

	t.Setenv("ANTHROPIC_API_KEY", "k")
	m, err := anthropic.New("")
	require.NoError(t, err)
	require.Equal(t, anthropic.DefaultModel, m.Name())
	require.Equal(t, "anthropic", m.Provider())
	require.Equal(t, anthropic.DefaultBaseURL, m.BaseURL())

	t.Setenv("ANTHROPIC_BASE_URL", "https://gateway.example")
	m, err = anthropic.New("claude-haiku-5-5")
	require.NoError(t, err)
	require.Equal(t, "https://gateway.example", m.BaseURL())
	require.Equal(t, "claude-haiku-5-5", m.Name())

	m, err = anthropic.New("", model.WithBaseURL("https://option.example"))
	require.NoError(t, err)
	require.Equal(t, "https://option.example", m.BaseURL(), "the option wins over the variable")

	_, err = anthropic.New("", model.WithBaseURL("gateway"))
	require.ErrorContains(t, err, "not an absolute URL")
}
