package chroma

import (
	"context"
	"encoding/json"
	"net/http"

	chroma "github.com/amikos-tech/chroma-go/pkg/api/v2"
)

// requester is the part of chroma-go's HTTP client that sends a request
// to a path under the API's base URL, with the client's headers (auth
// included).
type requester interface {
	ExecuteRequest(ctx context.Context, method, path string, request any) ([]byte, error)
}

// serverBatchSize returns the max_batch_size the server reports in its
// pre-flight checks (GET /api/v2/pre-flight-checks), or 0 when it is not
// known: the client cannot send the request (not chroma-go's HTTP
// client), the request fails, or the reply has no positive whole
// max_batch_size. Not knowing is no error: the caller falls back to
// [DefaultMaxBatchSize].
func serverBatchSize(ctx context.Context, c chroma.Client) int {
	r, ok := c.(requester)
	if !ok {
		return 0
	}
	body, err := r.ExecuteRequest(ctx, http.MethodGet, "pre-flight-checks", nil)
	if err != nil {
		return 0
	}
	var reply struct {
		MaxBatchSize json.Number `json:"max_batch_size"`
	}
	if err := json.Unmarshal(body, &reply); err != nil {
		return 0
	}
	n, err := reply.MaxBatchSize.Int64()
	if err != nil || n <= 0 || n > int64(^uint32(0)>>1) {
		return 0
	}
	return int(n)
}

// effectiveBatch is the records or ids per request: the configured size
// (zero: [DefaultBatchSize]) capped at the server's limit, or at
// [DefaultMaxBatchSize] when the server reports none.
func effectiveBatch(configured, server int) int {
	if configured == 0 {
		configured = DefaultBatchSize
	}
	if server <= 0 {
		server = DefaultMaxBatchSize
	}
	return min(configured, server)
}

// BatchSize returns the most records or ids the store sends in one
// request: [Config.BatchSize] capped at the max_batch_size the server
// reported when the store was opened.
func (s *Store) BatchSize() int { return s.batch }
