package telemetry

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func TestToolSpan(t *testing.T) {
	for _, tc := range []struct {
		name    string
		call    ToolCall
		capture bool
		result  []byte
		isError bool
		err     error
		want    map[string]attribute.Value
		status  codes.Code
		msg     string
	}{
		{
			name: "the model's call", call: ToolCall{Name: "add", ID: "c1", Arguments: []byte(`{"a":1}`)},
			result: []byte(`3`),
			want: map[string]attribute.Value{
				"gen_ai.operation.name": attribute.StringValue("execute_tool"), "gen_ai.tool.name": attribute.StringValue("add"),
				"gen_ai.tool.call.id": attribute.StringValue("c1"), "gen_ai.tool.type": attribute.StringValue("function"),
				"loom.tool.is_error": attribute.BoolValue(false),
			},
			status: codes.Unset,
		},
		{
			name: "captured content", call: ToolCall{Name: "add", ID: "c1", Arguments: []byte(`{"a":1}`)}, capture: true,
			result: []byte(`3`),
			want: map[string]attribute.Value{
				"gen_ai.operation.name": attribute.StringValue("execute_tool"), "gen_ai.tool.name": attribute.StringValue("add"),
				"gen_ai.tool.call.id": attribute.StringValue("c1"), "gen_ai.tool.type": attribute.StringValue("function"),
				"gen_ai.tool.call.arguments": attribute.StringValue(`{"a":1}`), "gen_ai.tool.call.result": attribute.StringValue("3"),
				"loom.tool.is_error": attribute.BoolValue(false),
			},
			status: codes.Unset,
		},
		{
			name: "a snippet's failed call", call: ToolCall{Name: "fetch", Caller: "sandbox"}, capture: true,
			isError: true, err: errors.New("no network"),
			want: map[string]attribute.Value{
				"gen_ai.operation.name": attribute.StringValue("execute_tool"), "gen_ai.tool.name": attribute.StringValue("fetch"),
				"gen_ai.tool.type": attribute.StringValue("function"), "loom.tool.caller": attribute.StringValue("sandbox"),
				"loom.tool.is_error": attribute.BoolValue(true),
			},
			status: codes.Error, msg: "no network",
		},
		{
			name: "an error result without an error", call: ToolCall{Name: "add", ID: "c2"},
			result: []byte(`{"error":"bad"}`), isError: true,
			want: map[string]attribute.Value{
				"gen_ai.operation.name": attribute.StringValue("execute_tool"), "gen_ai.tool.name": attribute.StringValue("add"),
				"gen_ai.tool.call.id": attribute.StringValue("c2"), "gen_ai.tool.type": attribute.StringValue("function"),
				"loom.tool.is_error": attribute.BoolValue(true),
			},
			status: codes.Error, msg: `{"error":"bad"}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			ctx := WithContentCapture(WithTracerProvider(context.Background(), sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))), tc.capture)
			sctx, span := StartToolSpan(ctx, tc.call)
			EndToolSpan(sctx, span, tc.result, tc.isError, tc.err)
			ended := rec.Ended()
			require.Len(t, ended, 1)
			require.Equal(t, "execute_tool "+tc.call.Name, ended[0].Name())
			got := map[string]attribute.Value{}
			for _, kv := range ended[0].Attributes() {
				got[string(kv.Key)] = kv.Value
			}
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.status, ended[0].Status().Code)
			require.Equal(t, tc.msg, ended[0].Status().Description)
		})
	}
}
