package jsonschema

import (
	"bytes"
	"testing"

	old "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
)

// benchSchema is a tool input schema of the usual size: a few typed
// fields, one required, no extras.
const benchSchema = `{"type":"object","properties":{"query":{"type":"string","minLength":1},"limit":{"type":"integer","minimum":1,"maximum":100},"tags":{"type":"array","items":{"type":"string"}}},"required":["query"],"additionalProperties":false}`

// BenchmarkCheck is one check of valid arguments, by loom and by the
// reference library it replaced (parsing included in both).
func BenchmarkCheck(b *testing.B) {
	data := []byte(`{"query":"weather in Paris","limit":5,"tags":["a","b"]}`)
	b.Run("loom", func(b *testing.B) {
		s, err := Compile([]byte(benchSchema))
		require.NoError(b, err)
		b.ReportAllocs()
		for b.Loop() {
			if issues, err := s.Check(data); err != nil || issues != nil {
				b.Fatal(issues, err)
			}
		}
	})
	b.Run("reference", func(b *testing.B) {
		doc, err := old.UnmarshalJSON(bytes.NewReader([]byte(benchSchema)))
		require.NoError(b, err)
		c := old.NewCompiler()
		require.NoError(b, c.AddResource("mem:///s.json", doc))
		s, err := c.Compile("mem:///s.json")
		require.NoError(b, err)
		b.ReportAllocs()
		for b.Loop() {
			inst, err := old.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Validate(inst); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCompile is one compile of a tool input schema.
func BenchmarkCompile(b *testing.B) {
	b.Run("loom", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Compile([]byte(benchSchema)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reference", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			doc, err := old.UnmarshalJSON(bytes.NewReader([]byte(benchSchema)))
			if err != nil {
				b.Fatal(err)
			}
			c := old.NewCompiler()
			if err := c.AddResource("mem:///s.json", doc); err != nil {
				b.Fatal(err)
			}
			if _, err := c.Compile("mem:///s.json"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
