package doccheck

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// exportedNames counts the exported names a package's non-test files
// for this platform declare: top-level types, functions, constants and
// variables, and methods.
func exportedNames(t *testing.T, dir string) (top, methods int) {
	t.Helper()
	pkg, err := build.ImportDir(dir, 0)
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, name := range pkg.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Name.IsExported() {
					if d.Recv == nil {
						top++
					} else {
						methods++
					}
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							top++
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								top++
							}
						}
					}
				}
			}
		}
	}
	return top, methods
}

// TestAPISize keeps the user packages' surfaces from growing: each may
// export at most its budget of names (top-level and methods). Issue 27
// aims at about 100 for agent; lower a budget when a package shrinks.
// Run with -v for the counts (bench/README.md, "API shape").
func TestAPISize(t *testing.T) {
	root := moduleRoot(t)
	for _, tc := range []struct {
		pkg    string
		budget int
	}{
		{"agent", 189}, // 184 after the plumbing split, + AI.WithToolsets, Run.ChildWithHistory, Question.AskedBy and UnmarshalJSON, Func.ChecksInput
		{"vector", 89},
		{"observe", 49}, // + ErrInvalidConfig: Setup refuses a negative MetricInterval
	} {
		t.Run(tc.pkg, func(t *testing.T) {
			top, methods := exportedNames(t, filepath.Join(root, tc.pkg))
			t.Logf("%s exports %d names: %d top-level, %d methods", tc.pkg, top+methods, top, methods)
			require.LessOrEqual(t, top+methods, tc.budget, "%s exports more names than its budget: move run-time plumbing out of the user package, or raise the budget on purpose", tc.pkg)
		})
	}
}
