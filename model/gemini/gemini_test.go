package gemini_test

import (
	"errors"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/gemini"
	"github.com/stretchr/testify/require"
)

func TestNewEnvironment(t *testing.T) {
	for _, v := range []string{"GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL"} {
		t.Setenv(v, "")
	}
	_, err := gemini.New("")
	require.ErrorIs(t, err, model.ErrMissingKey)
	var mk *model.MissingKeyError
	require.True(t, errors.As(err, &mk))
	require.Equal(t, []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"}, mk.Vars)
	require.ErrorContains(t, err, "GEMINI_API_KEY")

	t.Setenv("GEMINI_API_KEY", "k")
	m, err := gemini.New("")
	require.NoError(t, err)
	require.Equal(t, gemini.DefaultModel, m.Name())
	require.Equal(t, "gemini", m.Provider())
	require.Equal(t, gemini.DefaultBaseURL, m.BaseURL())

	t.Setenv("GOOGLE_GEMINI_BASE_URL", "https://proxy.example/")
	m, err = gemini.New("models/gemini-3.8-flash")
	require.NoError(t, err)
	require.Equal(t, "https://proxy.example/", m.BaseURL())
	require.Equal(t, "gemini-3.8-flash", m.Name(), "a models/ prefix is dropped")

	m, err = gemini.New("", model.WithBaseURL("https://option.example/"))
	require.NoError(t, err)
	require.Equal(t, "https://option.example/", m.BaseURL())
}
