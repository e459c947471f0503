package spec

import (
	"fmt"
	"io/fs"
	"maps"
	"mime"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"text/template"

	"github.com/yosida95/uritemplate/v3"
)

// MaxKnowledgeFiles bounds the documents a project's knowledge patterns
// may match.
const MaxKnowledgeFiles = 1000

// fileVar matches a {var} in a resource template's file.
var fileVar = regexp.MustCompile(`\{([A-Za-z0-9_]+)\}`)

// checkServed checks what the file offers MCP clients (resources,
// knowledge, prompts) and reads the files its prompts embed; the files
// resources name must be readable now, and are read again when a client
// asks. A section with errors of the walk (the first walkErrs) is passed
// over: one mistake, one error.
func (d *Doc) checkServed(c *checker, walkErrs int) {
	uris := map[string]string{} // URI or template -> where it is declared
	for i := range d.File.Resources {
		if c.failedAt("resources", walkErrs) {
			break
		}
		d.checkResource(c, fmt.Sprintf("resources[%d]", i), &d.File.Resources[i], uris)
	}
	if !c.failedAt("knowledge", walkErrs) {
		if files, err := d.knowledgeFiles(); err != nil {
			c.fail(d.pos["knowledge"], "knowledge", "give glob patterns of files inside the project folder, as docs/*.md", "%v", err)
		} else {
			d.knowledge = files
		}
	}
	if c.failedAt("prompts", walkErrs) {
		return
	}
	for _, n := range slices.Sorted(maps.Keys(d.File.Prompts)) {
		p := d.File.Prompts[n]
		d.checkPrompt(c, join("prompts", n), n, &p)
		d.File.Prompts[n] = p
	}
}

func (d *Doc) checkResource(c *checker, at string, r *Resource, uris map[string]string) {
	fail := func(key, hint, format string, args ...any) {
		p := at
		if key != "" {
			p = join(at, key)
		}
		n := d.pos[p]
		if n == nil {
			n = d.pos[at]
		}
		c.fail(n, p, hint, format, args...)
	}
	var vars []string
	switch {
	case (r.URI == "") == (r.URITemplate == ""):
		fail("", "give uri for one resource, or uri_template for every URI it matches", "a resource needs exactly one of uri and uri_template")
		return
	case r.URI != "":
		if u, err := url.Parse(r.URI); err != nil || u.Scheme == "" {
			fail("uri", "write an absolute URI, as docs://guide or file:///path", "uri %q is not an absolute URI", r.URI)
			return
		}
		if len(r.Complete) > 0 {
			fail("complete", "complete lists values of a uri_template's variables", "a resource with a fixed uri has nothing to complete")
		}
	default:
		t, err := uritemplate.New(r.URITemplate)
		if err != nil {
			fail("uri_template", "write an RFC 6570 template, as docs://guide/{topic}", "uri_template %q: %v", r.URITemplate, err)
			return
		}
		vars = t.Varnames()
		if len(vars) == 0 {
			fail("uri_template", "give the variable part in braces, as docs://guide/{topic}, or use uri", "uri_template %q has no variables", r.URITemplate)
		}
		for v := range r.Complete {
			if !slices.Contains(vars, v) {
				fail(join("complete", v), "name a variable of "+r.URITemplate, "%q is not a variable of the template", v)
			}
		}
	}
	key := r.URI + r.URITemplate
	if prev, ok := uris[key]; ok {
		fail("", "give each resource its own URI", "%s is also declared at %s", key, prev)
	}
	uris[key] = at
	if (r.Text == "") == (r.File == "") {
		fail("", "give the contents inline in text, or a project file in file", "a resource needs exactly one of text and file")
		return
	}
	mt := r.mimeType()
	if r.Text != "" {
		if !textual(mt) {
			fail("mime_type", "give text a textual type (text/plain, application/json), or bytes in a file", "text cannot have the binary type %s", mt)
		}
		if r.URITemplate != "" {
			if _, err := template.New(at).Option("missingkey=error").Parse(r.Text); err != nil {
				fail("text", "write a Go text/template over the template's variables, as {{.topic}}", "%v", err)
			}
		}
		return
	}
	if r.URITemplate == "" {
		if _, err := d.files.read(d.Dir, r.File); err != nil {
			fail("file", d.files.hint(err), "cannot read %s: %v", r.File, err)
		}
		return
	}
	for _, m := range fileVar.FindAllStringSubmatch(r.File, -1) {
		if !slices.Contains(vars, m[1]) {
			fail("file", "use the template's variables: "+strings.Join(vars, ", "), "{%s} in file is not a variable of %s", m[1], r.URITemplate)
		}
	}
	if dir := path.Dir(filepath.ToSlash(r.File)); !fileVar.MatchString(dir) && dir != "." {
		if _, err := d.files.dir(d.Dir, dir); err != nil {
			fail("file", d.files.hint(err), "cannot open the folder %s: %v", dir, err)
		}
	}
}

// mimeType is the resource's media type: as declared, else its file's by
// extension, else text/plain.
func (r *Resource) mimeType() string {
	if r.MIMEType != "" {
		return r.MIMEType
	}
	return mimeOf(r.File, "text/plain")
}

// mimeOf is a file's media type by its extension, or def.
func mimeOf(name, def string) string {
	switch ext := strings.ToLower(filepath.Ext(name)); ext {
	case "":
		return def
	case ".md", ".markdown":
		return "text/markdown"
	case ".yaml", ".yml":
		return "application/yaml"
	default:
		if mt := mime.TypeByExtension(ext); mt != "" {
			mt, _, _ = strings.Cut(mt, ";")
			return mt
		}
	}
	return def
}

// textual reports whether mt is read as text.
func textual(mt string) bool {
	return strings.HasPrefix(mt, "text/") || strings.Contains(mt, "json") || strings.Contains(mt, "yaml") || strings.Contains(mt, "xml") || strings.Contains(mt, "javascript")
}

// knowledgeFiles lists the project files the knowledge patterns match,
// relative to the file's folder, sorted.
func (d *Doc) knowledgeFiles() ([]string, error) {
	if len(d.File.Knowledge) == 0 {
		return nil, nil
	}
	root, err := os.OpenRoot(d.files.root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	dir, err := filepath.Abs(d.Dir)
	if err != nil {
		return nil, err
	}
	base, err := filepath.Rel(d.files.root, dir)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, pat := range d.File.Knowledge {
		if filepath.IsAbs(pat) || !filepath.IsLocal(filepath.FromSlash(pat)) {
			return nil, fmt.Errorf("pattern %q leads outside the project folder: %w", pat, ErrOutsideProject)
		}
		full := path.Join(filepath.ToSlash(base), pat)
		matches, err := fs.Glob(root.FS(), full)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", pat, err)
		}
		n := 0
		for _, m := range matches {
			if hidden(m) && !hidden(full) {
				continue // .env.local and the like only when named
			}
			if st, err := fs.Stat(root.FS(), m); err != nil || !st.Mode().IsRegular() {
				continue
			}
			rel, err := filepath.Rel(filepath.ToSlash(base), m)
			if err != nil {
				continue
			}
			seen[filepath.ToSlash(rel)] = true
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("pattern %q matches no file", pat)
		}
	}
	if len(seen) > MaxKnowledgeFiles {
		return nil, fmt.Errorf("the patterns match %d files, more than %d", len(seen), MaxKnowledgeFiles)
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out, nil
}

// hidden reports whether a segment of p starts with a dot.
func hidden(p string) bool {
	for seg := range strings.SplitSeq(p, "/") {
		if strings.HasPrefix(seg, ".") && seg != "." && seg != ".." {
			return true
		}
	}
	return false
}

func (d *Doc) checkPrompt(c *checker, at, name string, p *Prompt) {
	if !validName(name) {
		c.fail(d.pos[at], at, "use letters, digits, _ and -", "prompt name %q is not valid", name)
	}
	if e := d.Entry(name); e != nil {
		if ai, ok := e.Config.(*AI); ok && (ai.Instructions != "" || ai.InstructionsFile != "") {
			c.fail(d.pos[at], at, "rename the prompt or the agent", "agent %s's instructions are offered as a prompt of the same name", name)
		}
	}
	args := map[string]bool{}
	for i, a := range p.Arguments {
		ap := fmt.Sprintf("%s.arguments[%d]", at, i)
		switch {
		case a.Name == "":
			c.fail(d.pos[ap], ap, "give the argument a name", "an argument needs a name")
		case args[a.Name]:
			c.fail(d.pos[ap], ap, "give each argument its own name", "argument %q is given twice", a.Name)
		}
		args[a.Name] = true
	}
	for i := range p.Messages {
		m := &p.Messages[i]
		mp := fmt.Sprintf("%s.messages[%d]", at, i)
		given := 0
		for _, set := range []bool{m.Text != "", m.TextFile != "", m.Image != nil, m.Audio != nil, m.Resource != nil} {
			if set {
				given++
			}
		}
		if given != 1 {
			c.fail(d.pos[mp], mp, "give one of text, text_file, image, audio and resource; write several messages for several parts", "a message needs exactly one content, it has %d", given)
			continue
		}
		if m.TextFile != "" {
			b, err := d.files.read(d.Dir, m.TextFile)
			if err != nil {
				c.fail(d.pos[join(mp, "text_file")], join(mp, "text_file"), d.files.hint(err), "cannot read %s: %v", m.TextFile, err)
				continue
			}
			m.Text = string(b)
		}
		if m.Text != "" {
			d.checkTemplate(c, join(mp, "text"), m.Text)
		}
		for _, media := range []struct {
			key, kind string
			m         *Media
		}{{"image", "image", m.Image}, {"audio", "audio", m.Audio}} {
			if media.m == nil {
				continue
			}
			kp := join(mp, media.key)
			if media.m.MIMEType == "" {
				media.m.MIMEType = mimeOf(media.m.File, "")
			}
			if !strings.HasPrefix(media.m.MIMEType, media.kind+"/") {
				c.fail(d.pos[kp], kp, "give mime_type, as "+media.kind+"/png", "%s's media type is %q, not %s/…", media.m.File, media.m.MIMEType, media.kind)
				continue
			}
			b, err := d.files.read(d.Dir, media.m.File)
			if err != nil {
				c.fail(d.pos[join(kp, "file")], join(kp, "file"), d.files.hint(err), "cannot read %s: %v", media.m.File, err)
				continue
			}
			media.m.data = b
		}
		if r := m.Resource; r != nil {
			rp := join(mp, "resource")
			d.checkTemplate(c, join(rp, "uri"), r.URI)
			if (r.Text == "") == (r.File == "") {
				c.fail(d.pos[rp], rp, "give the contents inline in text, or a project file in file", "an embedded resource needs exactly one of text and file")
				continue
			}
			if r.MIMEType == "" {
				r.MIMEType = mimeOf(r.File, "text/plain")
			}
			if r.Text != "" {
				d.checkTemplate(c, join(rp, "text"), r.Text)
				continue
			}
			b, err := d.files.read(d.Dir, r.File)
			if err != nil {
				c.fail(d.pos[join(rp, "file")], join(rp, "file"), d.files.hint(err), "cannot read %s: %v", r.File, err)
				continue
			}
			r.data = b
		}
		if m.Role == "" {
			m.Role = "user"
		}
	}
}

// checkTemplate checks that s is a Go text/template.
func (d *Doc) checkTemplate(c *checker, at, s string) {
	if _, err := template.New(at).Parse(s); err != nil {
		c.fail(d.pos[at], at, "write a Go text/template over the arguments, as {{.topic}}", "%v", err)
	}
}

// Offers lists what the file offers MCP clients under loom mcp serve,
// one line each, for a person to see which files a client may read: its
// resources and what each reads, its knowledge documents, the files its
// entries name, and its prompts.
func (d *Doc) Offers() []string {
	var out []string
	for _, r := range d.File.Resources {
		from := "text"
		if r.File != "" {
			from = "file " + r.File
		}
		out = append(out, fmt.Sprintf("resource %s%s (%s)", r.URI, r.URITemplate, from))
	}
	if len(d.knowledge) > 0 {
		out = append(out, fmt.Sprintf("knowledge: %d documents (%s)", len(d.knowledge), strings.Join(d.knowledge, ", ")))
	}
	for _, e := range d.Agents {
		if c, ok := e.Config.(*Retriever); ok {
			out = append(out, fmt.Sprintf("search %s (store %s)", fmt.Sprintf(RetrieverTemplate, e.Name), c.Store))
		}
	}
	if named := d.namedFiles(); len(named) > 0 {
		out = append(out, "files its entries name: "+strings.Join(named, ", "))
	}
	for _, n := range slices.Sorted(maps.Keys(d.File.Prompts)) {
		out = append(out, "prompt "+n)
	}
	for _, e := range d.Agents {
		if c, ok := e.Config.(*AI); ok && strings.TrimSpace(c.Instructions) != "" {
			out = append(out, "prompt "+e.Name+" (the agent's instructions)")
		}
	}
	return out
}
