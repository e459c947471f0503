package viewer_test

import (
	"context"
	"net/http/httptest"
	"strconv"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/loomwork/loom/observe"
	"github.com/loomwork/loom/observe/viewer"
	"github.com/stretchr/testify/require"
)

// A viewer left open shows the runs that one-shot programs spool after it
// opened the database: its list's next poll stores and returns them.
func TestAPIShowsSpooledRuns(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	srv := httptest.NewServer(viewer.NewHandler(s, viewer.HandlerConfig{}))
	defer srv.Close()
	var page tracePage
	get(t, srv, "/api/traces", &page)
	require.Empty(t, page.Traces)

	// A one-shot program records a run to the same database.
	tel, shutdown, err := observe.Setup(ctx, observe.Config{Exporter: observe.ExporterStore, StorePath: s.Path(), ShortLived: true})
	require.NoError(t, err)
	require.Nil(t, tel.Store, "the program spools")
	_, span := tel.TracerProvider.Tracer("github.com/loomwork/loom").Start(ctx, "invoke_agent coder")
	span.SetAttributes(attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "coder"))
	span.End()
	require.NoError(t, shutdown(ctx))

	var since tracePage
	get(t, srv, "/api/traces?since="+strconv.FormatInt(page.Seq, 10), &since)
	require.Len(t, since.Traces, 1)
	require.Equal(t, "coder", since.Traces[0].Agent)
	var detail traceResp
	get(t, srv, "/api/traces/"+since.Traces[0].TraceID, &detail)
	require.Len(t, detail.Spans, 1)
	require.Equal(t, "invoke_agent coder", detail.Spans[0].Name)
}
