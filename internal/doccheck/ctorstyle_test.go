package doccheck

import (
	"go/ast"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loomwork/loom/internal/config/configtest"
)

// optionProviders may keep functional options on their constructors: a
// provider mirrors its SDK's client (its package doc says so).
var optionProviders = []string{"model/anthropic", "model/gemini", "model/openai"}

// providerOptionAppliers apply the options the providers share
// ([model.ClientOption]) for a provider's constructor; they build nothing
// once themselves.
var providerOptionAppliers = []string{"model.NewClientSettings"}

// ctorStyle is how one constructor takes its settings.
type ctorStyle int

const (
	styleOther   ctorStyle = iota // neither (positional arguments, or none)
	styleConfig                   // a parameter whose type is a ...Config struct
	styleOptions                  // a variadic parameter of an ...Option type
)

// typeName is the name of a parameter's type without package or pointer.
func typeName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return typeName(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.Ident:
		return x.Name
	case *ast.Ellipsis:
		return typeName(x.Elt)
	case *ast.IndexExpr:
		return typeName(x.X)
	}
	return ""
}

// styleOf classifies a constructor by its parameters.
func styleOf(fn *ast.FuncDecl) ctorStyle {
	style := styleOther
	for _, p := range fn.Type.Params.List {
		name := typeName(p.Type)
		if _, variadic := p.Type.(*ast.Ellipsis); variadic && strings.HasSuffix(name, "Option") {
			return styleOptions
		}
		if strings.HasSuffix(name, "Config") {
			style = styleConfig
		}
	}
	return style
}

// constructors lists the exported New*, Open* and Connect* functions of
// the core module's public packages (configtest.WalkPublic), by
// "dir.Func", with their style.
func constructors(t *testing.T, root string) map[string]ctorStyle {
	t.Helper()
	out := map[string]ctorStyle{}
	err := configtest.WalkPublic(root, func(path string, f *ast.File) error {
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !fn.Name.IsExported() {
				continue
			}
			if n := fn.Name.Name; strings.HasPrefix(n, "New") || strings.HasPrefix(n, "Open") || strings.HasPrefix(n, "Connect") {
				out[filepath.ToSlash(rel)+"."+fn.Name.Name] = styleOf(fn)
			}
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// TestConstructorStyle keeps one construction style (issue 27): what is
// built once takes a Config struct, and functional options are left to
// per-call settings and to the providers that mirror their SDK. Run with
// -v for the census (bench/README.md, "API shape").
func TestConstructorStyle(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	ctors := constructors(t, root)
	var config, options, other int
	var offenders []string
	for name, style := range ctors {
		switch style {
		case styleConfig:
			config++
		case styleOptions:
			options++
			if !slices.Contains(optionProviders, name[:strings.LastIndexByte(name, '.')]) && !slices.Contains(providerOptionAppliers, name) {
				offenders = append(offenders, name)
			}
		default:
			other++
		}
	}
	slices.Sort(offenders)
	t.Logf("constructors: %d; Config struct: %d; functional options: %d (%d outside the providers); other: %d", len(ctors), config, options, len(offenders), other)
	require.Empty(t, offenders, "constructors of things built once take a Config struct, not functional options (only providers mirroring their SDK may)")
	require.Positive(t, config, "the walk finds the Config constructors")
}
