package provider

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/model"
)

func TestSettingsResolve(t *testing.T) {
	errNoBase := errors.New("missing base URL")
	endpoint := Endpoint{ID: "p", KeyVars: []string{"P_KEY_A", "P_KEY_B"}, BaseURLVar: "P_BASE", DefaultBaseURL: "https://api.example/v1",
		MissingBaseURL: errNoBase, MissingBaseURLHint: "set P_BASE", BaseURLForm: "https://host/v1"}
	for _, tc := range []struct {
		name    string
		env     map[string]string
		opts    []model.ClientOption
		e       func(Endpoint) Endpoint
		key     string
		base    string
		wantErr string
		is      error
	}{
		{name: "given", opts: []model.ClientOption{model.WithAPIKey("k1"), model.WithBaseURL(" https://h.example/x ")}, key: "k1", base: "https://h.example/x"},
		{name: "from the environment", env: map[string]string{"P_KEY_B": "k2", "P_BASE": "https://env.example"}, key: "k2", base: "https://env.example"},
		{name: "the first key variable wins", env: map[string]string{"P_KEY_A": "ka", "P_KEY_B": "kb"}, key: "ka", base: "https://api.example/v1"},
		{name: "no key", wantErr: "P_KEY_A", is: model.ErrMissingKey},
		{name: "no key, optional", e: func(e Endpoint) Endpoint { e.KeyOptional = true; return e }, base: "https://api.example/v1"},
		{name: "no base URL", env: map[string]string{"P_KEY_A": "k"}, e: func(e Endpoint) Endpoint { e.DefaultBaseURL = ""; return e },
			wantErr: "p: missing base URL: set P_BASE", is: errNoBase},
		{name: "relative base URL", opts: []model.ClientOption{model.WithAPIKey("k"), model.WithBaseURL("api.example")},
			wantErr: `p: base URL "api.example" is not an absolute URL: write it as "https://host/v1"`},
		{name: "negative retry wait", opts: []model.ClientOption{model.WithAPIKey("k"), model.WithMaxRetryWait(-time.Second)},
			wantErr: "WithMaxRetryWait", is: model.ErrInvalidOption},
		{name: "negative retries", opts: []model.ClientOption{model.WithAPIKey("k"), model.WithMaxRetries(-1)},
			wantErr: "WithMaxRetries(-1)", is: model.ErrInvalidOption},
		{name: "negative max tokens", opts: []model.ClientOption{model.WithAPIKey("k"), model.WithMaxTokens(-1)},
			wantErr: "WithMaxTokens(-1)", is: model.ErrInvalidOption},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range []string{"P_KEY_A", "P_KEY_B", "P_BASE"} {
				t.Setenv(v, tc.env[v])
			}
			s := model.NewClientSettings(tc.opts...)
			e := endpoint
			if tc.e != nil {
				e = tc.e(e)
			}
			r, err := Resolve(s, e)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				if tc.is != nil {
					require.ErrorIs(t, err, tc.is)
				}
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.key, r.Key)
			require.Equal(t, tc.base, r.BaseURL)
			require.Equal(t, tc.base, r.URL.String())
			require.NotNil(t, r.HTTP)
		})
	}
}

func TestPolicyOfSettings(t *testing.T) {
	s := model.NewClientSettings(model.WithMaxRetries(0), model.WithMaxRetryWait(time.Second),
		model.WithRetryBackoff(time.Millisecond, time.Second), model.WithIdleTimeout(time.Minute))
	zero := 0
	require.Equal(t, Policy{MaxRetries: &zero, MaxRetryWait: time.Second, Backoff: time.Millisecond, MaxBackoff: time.Second, IdleTimeout: time.Minute}, policyOf(s))
}
