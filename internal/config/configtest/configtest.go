// Package configtest checks loom's rule for config structs (see package
// [github.com/loomwork/loom/internal/config]) over every config of a
// module: [Rule] builds each config with its numbers zero, then with each
// number at -1, and [EveryConfigHasACase] keeps the list of cases
// complete by parsing the module's source. The core module and each nested
// module (temporal, vector/*) run both over their own configs.
package configtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loomwork/loom/internal/config"
	"github.com/stretchr/testify/require"
)

// Case builds one config type: Value is a valid config (its numbers
// zero), Build hands a config of that type to its constructor. ZeroNeeds,
// when set, says what else than numbers the zero config lacks to build
// here (a server): its build may then fail, but not over a number. A
// config without numbers may leave Build nil.
type Case struct {
	Value     any
	Build     func(t *testing.T, cfg any) error
	ZeroNeeds string
}

// Ctor adapts a constructor taking only a config to Case.Build.
func Ctor[C, R any](f func(C) (R, error)) func(*testing.T, any) error {
	return func(_ *testing.T, c any) error {
		_, err := f(c.(C))
		return err
	}
}

// WalkPublic calls fn with each non-test Go file of the public packages
// of the module rooted at dir, parsed without comments: it skips internal,
// examples, cmd, testdata, hidden and node_modules folders, test-helper
// packages (folders named ...test), and nested modules.
func WalkPublic(dir string, fn func(path string, f *ast.File) error) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != dir && (strings.HasPrefix(name, ".") || name == "internal" || name == "testdata" || name == "node_modules" || name == "examples" || name == "cmd" || strings.HasSuffix(name, "test")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != dir {
				return filepath.SkipDir // a nested module, with its own check
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		return fn(path, f)
	})
}

// ExportedConfigs lists the exported struct types named Config or
// ...Config in the public packages of the module rooted at dir (see
// [WalkPublic]), as "path.Type" with path relative to repo, the
// repository's root.
func ExportedConfigs(t *testing.T, repo, dir string) []string {
	t.Helper()
	var out []string
	err := WalkPublic(dir, func(path string, f *ast.File) error {
		rel, err := filepath.Rel(repo, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				if _, isStruct := ts.Type.(*ast.StructType); isStruct && ts.Name.IsExported() && strings.HasSuffix(ts.Name.Name, "Config") {
					out = append(out, filepath.ToSlash(rel)+"."+ts.Name.Name)
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	slices.Sort(out)
	return out
}

// NestedModules lists the directories under repo, relative to it, that
// hold a go.mod of their own.
func NestedModules(t *testing.T, repo string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != repo && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != repo {
			rel, _ := filepath.Rel(repo, path)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// EveryConfigHasACase fails unless cases holds exactly the exported
// configs of the module rooted at dir (see [ExportedConfigs]).
func EveryConfigHasACase(t *testing.T, repo, dir string, cases map[string]Case) {
	t.Helper()
	names := make([]string, 0, len(cases))
	for k := range cases {
		names = append(names, k)
	}
	slices.Sort(names)
	require.Equal(t, ExportedConfigs(t, repo, dir), names, "every exported config struct needs a case, and every case a config")
}

// Module runs [EveryConfigHasACase] and [Rule] for the nested module at
// module (its path from the repository's root, such as "vector/chroma"),
// from a test in the module's root folder.
func Module(t *testing.T, module string, cases map[string]Case) {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	repo, ok := strings.CutSuffix(filepath.ToSlash(dir), "/"+module)
	require.True(t, ok, "run from the root folder of module %s, not %s", module, dir)
	EveryConfigHasACase(t, filepath.FromSlash(repo), dir, cases)
	Rule(t, cases)
}

// numbers lists the signed numeric fields of typ, by index path, dotted
// name and config tag, descending into nested structs as config.Check
// does.
func numbers(typ reflect.Type, index []int, name string) (paths [][]int, names []string, tags []string) {
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		idx := append(slices.Clone(index), i)
		n := strings.TrimPrefix(name+"."+f.Name, ".")
		switch f.Type.Kind() {
		case reflect.Struct:
			p, ns, ts := numbers(f.Type, idx, n)
			paths, names, tags = append(paths, p...), append(names, ns...), append(tags, ts...)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Float32, reflect.Float64:
			paths, names, tags = append(paths, idx), append(names, n), append(tags, f.Tag.Get("config"))
		}
	}
	return paths, names, tags
}

// Rule checks every case: all numbers zero builds (zero is the default),
// and each number set to -1 is refused with an error naming the field,
// unless the field is tagged config:"negative" (its doc says what a
// negative value means), when it builds.
func Rule(t *testing.T, cases map[string]Case) {
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			typ := reflect.TypeOf(c.Value)
			paths, fields, tags := numbers(typ, nil, "")
			if c.Build == nil {
				require.Empty(t, fields, "a config with numeric fields needs a build func")
				return
			}
			if err := c.Build(t, c.Value); c.ZeroNeeds == "" {
				require.NoError(t, err, "the zero numbers are the defaults")
			} else if err != nil {
				for _, f := range fields {
					require.NotContains(t, err.Error(), f[strings.LastIndexByte(f, '.')+1:]+" is", "the zero config fails for want of %s, not over a number", c.ZeroNeeds)
				}
			}
			for i, p := range paths {
				v := reflect.New(typ).Elem()
				v.Set(reflect.ValueOf(c.Value))
				f := v.FieldByIndex(p)
				if f.CanInt() {
					f.SetInt(-1)
				} else {
					f.SetFloat(-1)
				}
				err := c.Build(t, v.Interface())
				last := fields[i][strings.LastIndexByte(fields[i], '.')+1:]
				if tags[i] == config.TagNegative {
					if err != nil {
						require.NotContains(t, err.Error(), last, "%s is tagged negative: -1 has a meaning", fields[i])
					}
					continue
				}
				require.Error(t, err, "%s = -1 must be refused", fields[i])
				require.Contains(t, err.Error(), last, "the error names the field %s", fields[i])
			}
		})
	}
}
