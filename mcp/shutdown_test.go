package mcp

import (
	"context"
	"iter"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/model"
)

// stallingModel answers no sampling request: it reports each one on asked
// and waits for its context to end.
type stallingModel struct{ asked chan struct{} }

func (m stallingModel) Provider() string { return "test" }
func (m stallingModel) Name() string     { return "stalling" }
func (m stallingModel) Stream(ctx context.Context, _ model.Request) iter.Seq2[model.Chunk, error] {
	return func(yield func(model.Chunk, error) bool) {
		m.asked <- struct{}{}
		<-ctx.Done()
		yield(model.Chunk{}, ctx.Err())
	}
}

// samplingServer is an HTTP MCP server whose tool "summarise" asks the
// client's model; the errors its request got go to failed.
func samplingServer(t *testing.T) (url string, failed chan error) {
	t.Helper()
	failed = make(chan error, 4)
	life, end := context.WithCancel(context.Background())
	srv := sdk.NewServer(&sdk.Implementation{Name: "sampling", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "summarise", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		ctx, cancel := withinLife(ctx, life)
		defer cancel()
		//lint:ignore SA1019 sampling stays in the protocol during its deprecation window.
		_, err := req.Session.CreateMessage(ctx, &sdk.CreateMessageParams{MaxTokens: 10, Messages: []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "summarise"}}}})
		if err != nil {
			failed <- err
			return nil, err
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil
	})
	hs, _ := sdkHTTPServer(t, srv)
	t.Cleanup(end) // a stranded request waits until then
	return hs.URL, failed
}

func TestCloseFailsOpenServerRequests(t *testing.T) {
	// Close while the server waits for the client's answer, given by a
	// callback or a model that does not answer: the server hears the
	// request failed before the session ends, and Close reports no error
	// (a stranded server would hold the session's DELETE until it timed
	// out).
	cases := []struct {
		name  string
		setup func(t *testing.T, asked chan struct{}) (Config, string, chan error)
	}{
		{"elicitation answered by a callback", func(t *testing.T, asked chan struct{}) (Config, string, chan error) {
			b := newBookingServer(t)
			return Config{URL: b.url, Elicit: func(ctx context.Context, _ Elicitation) (ElicitAnswer, error) {
				asked <- struct{}{}
				<-ctx.Done() // Close ends it
				return ElicitAnswer{}, ctx.Err()
			}}, "book", b.failed
		}},
		{"sampling", func(t *testing.T, asked chan struct{}) (Config, string, chan error) {
			url, failed := samplingServer(t)
			return Config{URL: url, Sampling: stallingModel{asked: asked}}, "summarise", failed
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			asked := make(chan struct{}, 1)
			cfg, name, failed := tc.setup(t, asked)
			ts := connect(t, cfg)
			tl := toolNamed(t, ts, name)
			ran := make(chan error, 1)
			go func() { _, _, err := runTool(t, tl, `{}`); ran <- err }()
			<-asked
			require.NoError(t, ts.Close())
			require.ErrorContains(t, <-failed, "closing")
			require.Error(t, <-ran)
		})
	}
}
