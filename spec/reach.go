package spec

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Reach is one command a file starts or one URL it reaches when it runs,
// beside the model providers: an mcp entry's server.
type Reach struct {
	// Agent is the entry that declares it; Line and Col where.
	Agent     string
	Line, Col int
	// Command is the program and its arguments, for a server started
	// over stdio; URL the endpoint otherwise.
	Command []string
	URL     string
	// Headers are the header names sent to URL and where each value
	// comes from: "Authorization: Bearer ${env:API_TOKEN}",
	// "X-Key: $KEY".
	Headers []string
}

// String is the reach as one canonical line, the one shown to a person
// asked to trust the file and the one its trust is recorded over:
// "command [\"npx\",\"server\"]" or "url https://… headers [...]".
func (r Reach) String() string {
	if len(r.Command) > 0 {
		b, _ := json.Marshal(r.Command)
		return fmt.Sprintf("%s: command %s", r.Agent, b)
	}
	s := fmt.Sprintf("%s: url %s", r.Agent, r.URL)
	if len(r.Headers) > 0 {
		b, _ := json.Marshal(r.Headers)
		s += fmt.Sprintf(" headers %s", b)
	}
	return s
}

// Reaches returns every command the file would start and every URL it
// would reach beside its models' providers, in file order. A file with
// none runs only loom's own code: its agents, and JavaScript in loom's
// sandbox.
func (d *Doc) Reaches() []Reach {
	var out []Reach
	for _, e := range d.Agents {
		m, ok := e.Config.(*MCP)
		if !ok || (len(m.Command) == 0 && m.URL == "") {
			continue
		}
		r := Reach{Agent: e.Name, Line: e.Line, Col: e.Col, Command: slices.Clone(m.Command), URL: m.URL}
		if len(m.Command) > 0 {
			r.URL = ""
		}
		for _, k := range sortedKeys(m.Headers) {
			r.Headers = append(r.Headers, k+": "+m.Headers[k])
		}
		for _, k := range sortedKeys(m.HeadersEnv) {
			r.Headers = append(r.Headers, k+": $"+m.HeadersEnv[k])
		}
		out = append(out, r)
	}
	return out
}

// Models returns the model references the file names (its model and each
// entry's), sorted, without duplicates: the providers it reaches, at the
// base URLs the environment sets.
func (d *Doc) Models() []string {
	var out []string
	add := func(ref string) {
		if ref = strings.TrimSpace(ref); ref != "" {
			out = append(out, ref)
		}
	}
	add(d.File.Model)
	for _, e := range d.Agents {
		switch c := e.Config.(type) {
		case *AI:
			add(c.Model)
		case *CodeExecution:
			add(c.Model)
		case *Route:
			add(c.Model)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TrustLines are what a person trusts when they trust the file: each
// reach's line, each followed by a line per file of the project folder
// its command names (a script it runs, as ./server.sh), with the file's
// SHA-256, so that changing the script changes the lines as changing the
// command does.
func (d *Doc) TrustLines() []string {
	var out []string
	for _, r := range d.Reaches() {
		out = append(out, r.String())
		for _, arg := range r.Command {
			if sum, ok := d.files.sum(d.Dir, arg); ok {
				out = append(out, fmt.Sprintf("%s: runs %s sha256:%s", r.Agent, arg, sum))
			}
		}
	}
	return out
}
