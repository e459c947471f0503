package model_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/model"
)

func TestClientOptionsSetSettings(t *testing.T) {
	c := &http.Client{}
	zero := 0
	for _, tc := range []struct {
		name string
		opts []model.ClientOption
		want model.ClientSettings
	}{
		{"none", nil, model.ClientSettings{}},
		{"nil skipped", []model.ClientOption{nil, model.WithAPIKey("k")}, model.ClientSettings{APIKey: "k"}},
		{"every option", []model.ClientOption{
			model.WithAPIKey("k"), model.WithBaseURL("https://h"), model.WithMaxRetries(0), model.WithMaxRetryWait(time.Second),
			model.WithRetryBackoff(time.Millisecond, time.Second), model.WithIdleTimeout(time.Minute), model.WithHTTPClient(c),
			model.WithHeader("X-A", "1"), model.WithHeader("X-A", "2"), model.WithMaxTokens(512),
		}, model.ClientSettings{
			APIKey: "k", BaseURL: "https://h", MaxRetries: &zero, MaxRetryWait: time.Second, RetryBackoff: time.Millisecond,
			MaxRetryBackoff: time.Second, IdleTimeout: time.Minute, HTTPClient: c, Headers: http.Header{"X-A": {"1", "2"}}, MaxTokens: 512,
		}},
		{"the last wins", []model.ClientOption{model.WithAPIKey("a"), model.WithAPIKey("b")}, model.ClientSettings{APIKey: "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, model.NewClientSettings(tc.opts...))
		})
	}
}
