package provider

import (
	"errors"
	"net/http"
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
		opts    []func(*Settings)
		e       func(Endpoint) Endpoint
		key     string
		base    string
		wantErr string
		is      error
	}{
		{name: "given", opts: []func(*Settings){APIKey[*Settings]("k1"), BaseURL[*Settings](" https://h.example/x ")}, key: "k1", base: "https://h.example/x"},
		{name: "from the environment", env: map[string]string{"P_KEY_B": "k2", "P_BASE": "https://env.example"}, key: "k2", base: "https://env.example"},
		{name: "the first key variable wins", env: map[string]string{"P_KEY_A": "ka", "P_KEY_B": "kb"}, key: "ka", base: "https://api.example/v1"},
		{name: "no key", wantErr: "P_KEY_A", is: model.ErrMissingKey},
		{name: "no key, optional", e: func(e Endpoint) Endpoint { e.KeyOptional = true; return e }, base: "https://api.example/v1"},
		{name: "no base URL", env: map[string]string{"P_KEY_A": "k"}, e: func(e Endpoint) Endpoint { e.DefaultBaseURL = ""; return e },
			wantErr: "p: missing base URL: set P_BASE", is: errNoBase},
		{name: "relative base URL", opts: []func(*Settings){APIKey[*Settings]("k"), BaseURL[*Settings]("api.example")},
			wantErr: `p: base URL "api.example" is not an absolute URL: write it as "https://host/v1"`},
		{name: "negative retry wait", opts: []func(*Settings){APIKey[*Settings]("k"), MaxRetryWait[*Settings](-time.Second)},
			wantErr: "WithMaxRetryWait", is: model.ErrInvalidOption},
		{name: "negative retries", opts: []func(*Settings){APIKey[*Settings]("k"), MaxRetries[*Settings](-1)},
			wantErr: "WithMaxRetries(-1)", is: model.ErrInvalidOption},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range []string{"P_KEY_A", "P_KEY_B", "P_BASE"} {
				t.Setenv(v, tc.env[v])
			}
			var s Settings
			for _, o := range tc.opts {
				o(&s)
			}
			e := endpoint
			if tc.e != nil {
				e = tc.e(e)
			}
			r, err := s.Resolve(e)
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

// embedded is a provider's settings type with a field of its own.
type embedded struct {
	Settings
	extra int
}

func TestOptionsSetEmbeddedSettings(t *testing.T) {
	c := &http.Client{}
	var s embedded
	for _, o := range []func(*embedded){
		APIKey[*embedded]("k"), BaseURL[*embedded]("https://h"), MaxRetries[*embedded](0), MaxRetryWait[*embedded](time.Second),
		RetryBackoff[*embedded](time.Millisecond, time.Second), IdleTimeout[*embedded](time.Minute), HTTPClient[*embedded](c),
		Header[*embedded]("X-A", "1"), Header[*embedded]("X-A", "2"), func(e *embedded) { e.extra = 7 },
	} {
		o(&s)
	}
	zero := 0
	require.Equal(t, embedded{Settings: Settings{
		APIKey: "k", BaseURL: "https://h", HTTPClient: c, Headers: http.Header{"X-A": {"1", "2"}},
		Retry: Policy{MaxRetries: &zero, MaxRetryWait: time.Second, Backoff: time.Millisecond, MaxBackoff: time.Second, IdleTimeout: time.Minute},
	}, extra: 7}, s)
}
