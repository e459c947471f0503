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
// variables, and the exported methods of exported types. An exported
// method of an unexported type is not counted: go doc does not show it and
// no other package can name it (it is there to satisfy an interface).
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
				switch {
				case !d.Name.IsExported():
				case d.Recv == nil:
					top++
				case receiverName(d.Recv).IsExported():
					methods++
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

// receiverName returns the name of a method's receiver type, without its
// pointer and type parameters.
func receiverName(recv *ast.FieldList) *ast.Ident {
	t := recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	return t.(*ast.Ident)
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
		{"agent", 120},  // 189 at the start of issue 27, methods of unexported types counted
		{"vector", 83},  // 89 when methods of unexported types counted
		{"observe", 38}, // 49 when methods of unexported types counted
	} {
		t.Run(tc.pkg, func(t *testing.T) {
			top, methods := exportedNames(t, filepath.Join(root, tc.pkg))
			t.Logf("%s exports %d names: %d top-level, %d methods", tc.pkg, top+methods, top, methods)
			require.LessOrEqual(t, top+methods, tc.budget, "%s exports more names than its budget: move run-time plumbing out of the user package, or raise the budget on purpose", tc.pkg)
		})
	}
}
