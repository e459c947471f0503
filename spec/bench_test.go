package spec_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loomwork/loom/spec"
)

// BenchmarkParseCheck measures loading the every-entry-type file short of
// building its agents: the strict walk, decoding and reference checks.
func BenchmarkParseCheck(b *testing.B) {
	path := filepath.Join(b.TempDir(), "loom.yaml")
	if err := os.WriteFile(path, []byte(validFiles[0].yaml), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		d, err := spec.Parse(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := spec.Check(d, spec.Registry{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSchema measures generating the JSON Schema.
func BenchmarkSchema(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if len(spec.Schema()) == 0 {
			b.Fatal("empty schema")
		}
	}
}
