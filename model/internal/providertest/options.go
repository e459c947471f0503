package providertest

import (
	"time"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
)

// Options are the client options of a provider under test against a fake
// server at baseURL: the test key, two quick retries; extra are applied
// after them.
func Options(baseURL string, extra ...model.ClientOption) []model.ClientOption {
	return append([]model.ClientOption{
		model.WithAPIKey(modeltest.TestKey),
		model.WithBaseURL(baseURL),
		model.WithMaxRetries(2),
		model.WithRetryBackoff(time.Millisecond, 5*time.Millisecond),
	}, extra...)
}
