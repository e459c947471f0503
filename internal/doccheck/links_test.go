package doccheck

import (
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const modulePath = "github.com/loomwork/loom"

// moduleRoot is the repository's root: two folders up from this one.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	return root
}

// packageDirs returns the module's package folders (not nested modules,
// testdata or node_modules) by import path.
func packageDirs(t *testing.T, root string) map[string]string {
	t.Helper()
	dirs := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module, checked by its own tests
			}
		}
		if m, _ := filepath.Glob(filepath.Join(path, "*.go")); len(m) > 0 {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			ip := modulePath
			if rel != "." {
				ip += "/" + filepath.ToSlash(rel)
			}
			dirs[ip] = path
		}
		return nil
	})
	require.NoError(t, err)
	return dirs
}

// parsedPackage is a package's documentation, without test files.
func parsedPackage(t *testing.T, dir, importPath string) *doc.Package {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var files []*ast.File
	name := ""
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		require.NoError(t, err)
		if name == "" {
			name = f.Name.Name
		}
		if f.Name.Name != name {
			continue // a file of another package (a build-tagged main): not this one's docs
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil
	}
	p, err := doc.NewFromFiles(fset, files, importPath)
	require.NoError(t, err)
	return p
}

// exported names a package declares, as a doc link names them: T, F, V,
// T.M and T.F (a field is not a link target, so only methods).
func declared(p *doc.Package) map[string]bool {
	names := map[string]bool{}
	add := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, n := range v.Names {
				names[n] = true
			}
		}
	}
	add(p.Consts)
	add(p.Vars)
	for _, f := range p.Funcs {
		names[f.Name] = true
	}
	for _, ty := range p.Types {
		names[ty.Name] = true
		add(ty.Consts)
		add(ty.Vars)
		for _, f := range ty.Funcs {
			names[f.Name] = true
		}
		for _, m := range ty.Methods {
			names[ty.Name+"."+m.Name] = true
		}
		// An interface's methods and a struct's fields are link targets too.
		for _, spec := range ty.Decl.Specs {
			ts, ok := spec.(*ast.TypeSpec)
			if !ok || ts.Name.Name != ty.Name {
				continue
			}
			var fields *ast.FieldList
			switch x := ts.Type.(type) {
			case *ast.InterfaceType:
				fields = x.Methods
			case *ast.StructType:
				fields = x.Fields
			}
			if fields == nil {
				continue
			}
			for _, f := range fields.List {
				for _, n := range f.Names {
					names[ty.Name+"."+n.Name] = true
				}
			}
		}
	}
	return names
}

// linkLike finds text that reads as a doc link: [Name], [*Name],
// [pkg.Name], [pkg.Type.Method], with the punctuation or space around it
// that Go requires of a link.
var linkLike = regexp.MustCompile(`(?:^|[\s(,;:"'])\[(\*?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*){0,2})\](?:$|[\s).,;:'"])`)

// meantAsLink reports whether bracketed text that is not a link was meant
// as one: its last name is exported and not all capitals ([DONE] in an
// SSE stream is a literal; [name] or [Symbol.iterator] link nothing).
func meantAsLink(text string) bool {
	text = strings.TrimPrefix(text, "*")
	last := text[strings.LastIndexByte(text, '.')+1:]
	if !ast.IsExported(last) {
		return false
	}
	return strings.ToUpper(last) != last
}

// TestDocLinksResolve fails on a doc comment's link that resolves to
// nothing: the comment parser leaves an unknown [Name] as plain text, and
// a [pkg.Name] whose package is loom's but that declares no Name is a link
// to a missing anchor.
func TestDocLinksResolve(t *testing.T) {
	root := moduleRoot(t)
	dirs := packageDirs(t, root)
	pkgs := map[string]*doc.Package{}
	load := func(ip string) *doc.Package {
		if p, ok := pkgs[ip]; ok {
			return p
		}
		p := parsedPackage(t, dirs[ip], ip)
		pkgs[ip] = p
		return p
	}
	var bad []string
	for ip := range dirs {
		p := load(ip)
		if p == nil {
			continue
		}
		parser := p.Parser()
		check := func(where, text string) {
			d := parser.Parse(text)
			walkText(d, func(plain string) {
				for _, m := range linkLike.FindAllStringSubmatch(plain, -1) {
					if meantAsLink(m[1]) {
						bad = append(bad, where+": ["+m[1]+"] names nothing")
					}
				}
			}, func(l *comment.DocLink) {
				if l.ImportPath == "" || !strings.HasPrefix(l.ImportPath, modulePath) || l.Name == "" {
					return
				}
				target := load(l.ImportPath)
				name := l.Name
				if l.Recv != "" {
					name = l.Recv + "." + l.Name
				}
				if target == nil || !declared(target)[name] {
					bad = append(bad, where+": ["+l.ImportPath+"."+name+"] names nothing in "+l.ImportPath)
				}
			})
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(ip, modulePath), "/")
		check(rel+" package doc", p.Doc)
		docs := func(kind string, vs []*doc.Value) {
			for _, v := range vs {
				check(rel+" "+kind+" "+strings.Join(v.Names, ","), v.Doc)
			}
		}
		docs("const", p.Consts)
		docs("var", p.Vars)
		for _, f := range p.Funcs {
			check(rel+" func "+f.Name, f.Doc)
		}
		for _, ty := range p.Types {
			check(rel+" type "+ty.Name, ty.Doc)
			docs("const", ty.Consts)
			docs("var", ty.Vars)
			for _, f := range ty.Funcs {
				check(rel+" func "+f.Name, f.Doc)
			}
			for _, m := range ty.Methods {
				check(rel+" method "+ty.Name+"."+m.Name, m.Doc)
			}
		}
	}
	require.Empty(t, bad, "doc links that resolve to nothing: fix the name, or qualify it with its package")
}

// walkText calls plain with each run of plain text in d outside code
// blocks, and link with each doc link.
func walkText(d *comment.Doc, plain func(string), link func(*comment.DocLink)) {
	var texts func([]comment.Text)
	texts = func(ts []comment.Text) {
		for _, x := range ts {
			switch x := x.(type) {
			case comment.Plain:
				plain(string(x))
			case comment.Italic:
				plain(string(x))
			case *comment.DocLink:
				link(x)
			case *comment.Link:
				texts(x.Text)
			}
		}
	}
	var blocks func([]comment.Block)
	blocks = func(bs []comment.Block) {
		for _, b := range bs {
			switch b := b.(type) {
			case *comment.Paragraph:
				texts(b.Text)
			case *comment.Heading:
				texts(b.Text)
			case *comment.List:
				for _, it := range b.Items {
					blocks(it.Content)
				}
			}
		}
	}
	blocks(d.Content)
}
