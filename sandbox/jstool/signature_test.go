package jstool

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/sandbox"
)

func TestSignature(t *testing.T) {
	for _, tc := range []struct {
		name string
		tool sandbox.HostTool
		want string
	}{
		{"numbers", sandbox.HostTool{Name: "get-sum", Description: "Adds two numbers.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"b":{"type":"number"},"a":{"type":"integer"}},"required":["a","b"]}`)},
			"/** Adds two numbers. */\nget_sum(args: { b: number; a: number }): Promise<any>"},
		{"no schema", sandbox.HostTool{Name: "ping"}, "ping(args?: any): Promise<any>"},
		{"optional fields and an output", sandbox.HostTool{Name: "echo",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"},"n":{"type":["number","null"]}}}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"echo":{"type":"string"}},"required":["echo"]}`)},
			"echo(args?: { message?: string; n?: number | null }): Promise<{ echo: string }>"},
		{"descriptions, enums, arrays, maps", sandbox.HostTool{Name: "search", Description: "Searches.\nSlowly.",
			InputSchema: json.RawMessage(`{"type":"object","required":["q"],"properties":{
"q":{"type":"string","description":"What to look for."},
"mode":{"enum":["fast","full"]},
"tags":{"type":"array","items":{"type":"string"}},
"pairs":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}}}},
"meta":{"type":"object","additionalProperties":{"type":"number"}},
"my-key":{"const":3},
"ref":{"$ref":"#/defs/x"},
"either":{"anyOf":[{"type":"string"},{"type":"boolean"}]}}}`)},
			`/**
 * Searches.
 * Slowly.
 */
search(args: {
  /** What to look for. */
  q: string;
  mode?: "fast" | "full";
  tags?: string[];
  pairs?: Array<{ k?: string }>;
  meta?: Record<string, number>;
  "my-key"?: 3;
  ref?: any;
  either?: string | boolean;
}): Promise<any>`},
		{"a comment end in a description", sandbox.HostTool{Name: "x", Description: "ends */ here"}, "/** ends * / here */\nx(args?: any): Promise<any>"},
		{"a schema that is not JSON", sandbox.HostTool{Name: "x", InputSchema: json.RawMessage(`{`)}, "x(args?: any): Promise<any>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Signature(tc.tool))
		})
	}
}

func TestSignatureDepthBounded(t *testing.T) {
	deep := `{"type":"string"}`
	for range 20 {
		deep = `{"type":"array","items":` + deep + `}`
	}
	sig := Signature(sandbox.HostTool{Name: "d", InputSchema: json.RawMessage(deep)})
	require.Contains(t, sig, "any")
	require.Less(t, len(sig), 200)
}

func TestDeclarations(t *testing.T) {
	got := Declarations([]sandbox.HostTool{
		{Name: "get-sum", Description: "Adds.", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number","description":"First."}},"required":["a"]}`)},
		{Name: "echo"},
	})
	require.Equal(t, `declare const tools: {
  /** Adds. */
  get_sum(args: {
    /** First. */
    a: number;
  }): Promise<any>;
  echo(args?: any): Promise<any>;
};`, got)
}

// FuzzSignature: a schema comes from a tool's server, so no schema may
// make Signature panic.
func FuzzSignature(f *testing.F) {
	for _, s := range []string{`{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]}`, `{"anyOf":[{"type":["string","null"]},{"enum":[1,"x",null]}]}`,
		`{"type":"array","items":{"type":"object","additionalProperties":{"type":"array"}}}`, `{"properties":{"a b":{"const":{"x":1}}}}`, `[]`, `null`, `{"type":7}`} {
		f.Add(s, "a description */ with\nlines")
	}
	f.Fuzz(func(t *testing.T, schema, desc string) {
		sig := Signature(sandbox.HostTool{Name: "t", Description: desc, InputSchema: json.RawMessage(schema), OutputSchema: json.RawMessage(schema)})
		if sig == "" {
			t.Fatal("empty signature")
		}
	})
}
