package spec_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/modeltest"
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/spec"
	"github.com/loomwork/loom/vector"
	"github.com/stretchr/testify/require"
)

func search(t *testing.T) agent.Agent {
	t.Helper()
	a, err := agent.NewFunc("search", "Searches the docs.", func(_ context.Context, in struct {
		Query string `json:"query"`
	}) (map[string]string, error) {
		return map[string]string{"hits": "none for " + in.Query}, nil
	})
	require.NoError(t, err)
	return a
}

// loaderCases are files the loader rejects, each with every error it must
// report, in order, as "line:col: path: message".
var loaderCases = []struct {
	name  string
	yaml  string
	files map[string]string
	want  []string
	// beyondSchema marks what only the loader can see: files, references,
	// cycles, constructors' own checks.
	beyondSchema bool
}{
	{
		name: "typo key",
		yaml: "version: loom/v1\nagents:\n  helper:\n    type: ai\n    instrutions: Be brief.\n",
		want: []string{`5:5: agents.helper.instrutions: unknown key "instrutions"; did you mean instructions?`},
	},
	{
		name: "typo in a nested key",
		yaml: "version: loom/v1\nagents:\n  helper:\n    type: ai\n    sampling:\n      temprature: 0.2\n",
		want: []string{`6:7: agents.helper.sampling.temprature: unknown key "temprature"; did you mean temperature?`},
	},
	{
		name: "typo top-level key",
		yaml: "version: loom/v1\nentyr: helper\nagents:\n  helper: {type: ai}\n",
		want: []string{`2:1: entyr: unknown key "entyr"; did you mean entry?`},
	},
	{
		name: "wrong type integer",
		yaml: "version: loom/v1\nagents:\n  helper:\n    type: ai\n    max_turns: ten\n",
		want: []string{`5:16: agents.helper.max_turns: wrong type: want an integer, got the string "ten"; write a whole number, as 3`},
	},
	{
		name: "wrong type list",
		yaml: "version: loom/v1\nagents:\n  helper:\n    type: ai\n    tools: search\n",
		want: []string{`5:12: agents.helper.tools: wrong type: want a list, got the string "search"; write a list: [a, b] or one '- item' a line`},
	},
	{
		name: "wrong type string",
		yaml: "version: loom/v1\nagents:\n  helper:\n    type: ai\n    instructions: 42\n",
		want: []string{`5:19: agents.helper.instructions: wrong type: want a string, got the integer 42; quote it to make it a string: "42"`},
	},
	{
		name: "unknown agent type",
		yaml: "version: loom/v1\nagents:\n  steps:\n    type: sequense\n    steps: [a]\n",
		want: []string{`4:11: agents.steps.type: unknown agent type "sequense"; did you mean sequence? (want one of ai, code_execution, sequence, parallel, map, reflect, route, coordinator, function, retriever, mcp, graph)`},
	},
	{
		name: "missing type",
		yaml: "version: loom/v1\nagents:\n  helper:\n    instructions: Hi.\n",
		want: []string{`4:5: agents.helper: missing required key "type"; want one of ai, code_execution, sequence, parallel, map, reflect, route, coordinator, function, retriever, mcp, graph`},
	},
	{
		name: "missing required key",
		yaml: "version: loom/v1\nagents:\n  both:\n    type: sequence\n",
		want: []string{`4:5: agents.both: missing required key "steps"; add steps: to it`},
	},
	{
		name: "key of another type",
		yaml: "version: loom/v1\nagents:\n  both:\n    type: sequence\n    steps: [a]\n    branches: [a]\n  a: {type: ai}\n",
		want: []string{`6:5: agents.both.branches: unknown key "branches"; 'loom schema' lists every key, its type and its values`},
	},
	{
		name: "bad enum",
		yaml: "version: loom/v1\nagents:\n  coder:\n    type: code_execution\n    approval: aks\n",
		want: []string{`5:15: agents.coder.approval: unknown value "aks"; did you mean ask? (want one of none, ask)`},
	},
	{
		name: "bad version",
		yaml: "version: loom/v2\nagents: {}\n",
		want: []string{`1:10: version: unknown value "loom/v2"; did you mean loom/v1? (want one of loom/v1)`},
	},
	{
		name: "missing version",
		yaml: "agents: {}\n",
		want: []string{`1:1: missing required key "version"; add version: to it`},
	},
	{
		name: "secret in the file",
		yaml: "version: loom/v1\nagents:\n  helper:\n    type: ai\n    api_key: sk-123\n",
		want: []string{`5:5: agents.helper.api_key: unknown key "api_key"; keys and secrets are never read from the file: set them in the environment or in .env.local`},
	},
	{
		name: "bad agent name",
		yaml: "version: loom/v1\nagents:\n  my agent: {type: ai}\n",
		want: []string{`3:3: agents.my agent: agent name "my agent" is not a valid name; use letters, digits, '_' or '-', starting with a letter or '_'`},
	},
	{
		name: "every error at once",
		yaml: "version: loom/v1\nagents:\n  a:\n    type: ai\n    instrutions: x\n    max_turns: many\n  b:\n    type: reflect\n    worker: a\n",
		want: []string{
			`5:5: agents.a.instrutions: unknown key "instrutions"; did you mean instructions?`,
			`6:16: agents.a.max_turns: wrong type: want an integer, got the string "many"; write a whole number, as 3`,
			`8:5: agents.b: missing required key "reviewer"; add reviewer: to it`,
		},
	},
	{
		name: "sandbox_tools typo",
		yaml: "version: loom/v1\nagents:\n  coder:\n    type: code_execution\n    sandbox_tool: [search]\n",
		want: []string{`5:5: agents.coder.sandbox_tool: unknown key "sandbox_tool"; did you mean sandbox_tools?`},
	},
	{
		name: "sandbox_calls negative",
		yaml: "version: loom/v1\nagents:\n  coder:\n    type: code_execution\n    sandbox_tools: [search]\n    sandbox_calls: {max_calls: -1}\n",
		want: []string{`6:32: agents.coder.sandbox_calls.max_calls: max_calls is -1; leave it out for the default, or give a positive bound`},
	},
	{
		name: "mcp typo key",
		yaml: "version: loom/v1\nagents:\n  fs:\n    type: mcp\n    comand: [npx, server]\n",
		want: []string{
			`5:5: agents.fs.comand: unknown key "comand"; did you mean command?`,
		},
	},
	{
		name: "mcp filter not a list",
		yaml: "version: loom/v1\nagents:\n  fs:\n    type: mcp\n    command: server\n    filter: read_file\n",
		want: []string{`6:13: agents.fs.filter: wrong type: want a list, got the string "read_file"; write a list: [a, b] or one '- item' a line`},
	},
	{
		name: "mcp command not a command",
		yaml: "version: loom/v1\nagents:\n  fs:\n    type: mcp\n    command: {program: server}\n",
		want: []string{`5:14: agents.fs.command: wrong type: want a command, got a mapping; write the program and its arguments as a list [program, arg] or as one string`},
	},
	{
		name: "mcp url not http",
		yaml: "version: loom/v1\nagents:\n  fs:\n    type: mcp\n    url: ftp://127.0.0.1/mcp\n",
		want: []string{`5:10: agents.fs.url: url "ftp://127.0.0.1/mcp" is not an HTTP URL; use an http:// or https:// URL`},
	},
	{
		name: "mcp neither command nor url",
		yaml: "version: loom/v1\nagents:\n  fs:\n    type: mcp\n    prefix: fs\n",
		want: []string{`4:5: agents.fs: an mcp entry needs command or url; give command (a server started over stdio) or url (a streamable HTTP endpoint)`},
	},
	{
		name: "mcp both command and url",
		yaml: "version: loom/v1\nagents:\n  fs:\n    type: mcp\n    command: server\n    url: http://127.0.0.1/mcp\n",
		want: []string{`6:10: agents.fs.url: both command and url are given; keep one of them`},
	},
	{
		name: "mcp secret in a header",
		yaml: "version: loom/v1\nagents:\n  fs:\n    type: mcp\n    url: https://mcp.example.com/mcp\n    headers:\n      Authorization: Bearer sk-123\n",
		want: []string{`7:22: agents.fs.headers.Authorization: header Authorization is written in the file; write the secret in the environment and name it here, as "Bearer ${env:API_TOKEN}"`},
	},
	{
		name: "mcp bad header variable",
		yaml: "version: loom/v1\nagents:\n  fs:\n    type: mcp\n    url: https://mcp.example.com/mcp\n    headers_env:\n      Authorization: my token\n",
		want: []string{`7:22: agents.fs.headers_env.Authorization: "my token" is not a valid environment variable name; name the environment variable that holds the value, as API_TOKEN`},
	},
	{
		name:         "mcp oauth without url",
		yaml:         "version: loom/v1\nagents:\n  fs:\n    type: mcp\n    command: server\n    auth: oauth\n",
		want:         []string{`6:11: agents.fs.auth: auth without url; OAuth is for HTTP servers: set url, or drop auth`},
		beyondSchema: true,
	},
	{
		name:         "mcp oauth with an Authorization header",
		yaml:         "version: loom/v1\nagents:\n  fs:\n    type: mcp\n    url: https://mcp.example.com/mcp\n    auth: oauth\n    headers_env: {authorization: TOKEN}\n",
		want:         []string{`6:11: agents.fs.auth: auth: oauth with an Authorization header; OAuth sets the Authorization header: drop that header, or drop auth`},
		beyondSchema: true,
	},
	{
		name:         "mcp enterprise without client or idp",
		yaml:         "version: loom/v1\nagents:\n  fs:\n    type: mcp\n    url: https://mcp.example.com/mcp\n    auth: enterprise\n",
		want:         []string{`6:11: agents.fs.auth: auth: enterprise needs client_id; set client_id, the client registered with the server's authorization server`, `6:11: agents.fs.auth: auth: enterprise needs idp; add idp: {issuer: https://…, client_id: …}, the organisation's identity provider`},
		beyondSchema: true,
	},
	{
		name:         "mcp idp without enterprise",
		yaml:         "version: loom/v1\nagents:\n  fs:\n    type: mcp\n    url: https://mcp.example.com/mcp\n    auth: oauth\n    idp: {issuer: https://idp.example.com, client_id: loom}\n",
		want:         []string{`7:10: agents.fs.idp: idp is for auth: enterprise; set auth: enterprise, or drop idp`},
		beyondSchema: true,
	},
	{
		name:         "mcp client credentials without a secret",
		yaml:         "version: loom/v1\nagents:\n  fs:\n    type: mcp\n    url: https://mcp.example.com/mcp\n    auth: client_credentials\n    client_id: bot\n",
		want:         []string{`6:11: agents.fs.auth: auth: client_credentials needs client_secret_env; set client_secret_env, the environment variable that holds the client's secret`},
		beyondSchema: true,
	},
	{
		name:         "mcp client without auth",
		yaml:         "version: loom/v1\nagents:\n  fs:\n    type: mcp\n    url: https://mcp.example.com/mcp\n    client_id: bot\n    client_secret_env: BOT_SECRET\n",
		want:         []string{`6:16: agents.fs.client_id: client_id without auth; set auth (oauth, client_credentials or enterprise), or drop client_id`, `7:24: agents.fs.client_secret_env: client_secret_env without auth; set auth (oauth, client_credentials or enterprise), or drop client_secret_env`},
		beyondSchema: true,
	},
	{
		name:         "mcp idp scopes without openid",
		yaml:         "version: loom/v1\nagents:\n  fs:\n    type: mcp\n    url: https://mcp.example.com/mcp\n    auth: enterprise\n    client_id: mcp\n    idp:\n      issuer: https://idp.example.com\n      client_id: loom\n      scopes: [email]\n",
		want:         []string{`11:15: agents.fs.idp.scopes: idp scopes lack openid; add openid, which an ID token needs`},
		beyondSchema: true,
	},
	{
		name:         "mcp bad timeout",
		yaml:         "version: loom/v1\nagents:\n  fs:\n    type: mcp\n    command: server\n    timeout: soon\n",
		want:         []string{`6:14: agents.fs.timeout: timeout "soon" is not a duration; want a positive duration such as 30s`},
		beyondSchema: true,
	},
	{
		name:         "mcp entry as a step",
		yaml:         "version: loom/v1\nagents:\n  fs: {type: mcp, command: server}\n  both:\n    type: sequence\n    steps: [fs]\n",
		want:         []string{`6:13: agents.both.steps[0]: "fs" is an mcp entry, a set of tools, not an agent; name it in the tools of an ai or code_execution entry`},
		beyondSchema: true,
	},
	{
		name: "graph typo key in a node",
		yaml: "version: loom/v1\nagents:\n  writer: {type: ai}\n  flow:\n    type: graph\n    entry: draft\n    finish: [ask]\n    nodes:\n      draft: {agnt: writer}\n      ask: {human: {prompt: OK?}}\n    edges:\n      - {from: draft, to: ask}\n",
		want: []string{
			`9:15: agents.flow.nodes.draft.agnt: unknown key "agnt"; did you mean agent?`,
		},
	},
	{
		name: "graph node with agent and human",
		yaml: "version: loom/v1\nagents:\n  writer: {type: ai}\n  flow:\n    type: graph\n    entry: draft\n    finish: [ask]\n    nodes:\n      draft: {agent: writer, human: {prompt: OK?}}\n      ask: {human: {prompt: OK?}}\n    edges:\n      - {from: draft, to: ask}\n",
		want: []string{`9:37: agents.flow.nodes.draft.human: both agent and human are given; keep one of them`},
	},
	{
		name: "graph reserved node name",
		yaml: "version: loom/v1\nagents:\n  writer: {type: ai}\n  flow:\n    type: graph\n    entry: end\n    nodes:\n      end: {agent: writer}\n",
		want: []string{`8:7: agents.flow.nodes.end: node name "end" is reserved; start and end name the graph's ends; pick another name`},
	},
	{
		name: "graph branch without targets",
		yaml: "version: loom/v1\nagents:\n  writer: {type: ai}\n  flow:\n    type: graph\n    entry: draft\n    finish: [ask]\n    nodes:\n      draft: {agent: writer}\n      ask: {human: {prompt: OK?}}\n    edges:\n      - {from: draft, branch: \"'ask'\"}\n",
		want: []string{`12:9: agents.flow.edges[0]: a branch needs its targets; list every node the branch may pick in targets`},
	},
	{
		name: "graph edge with to and branch",
		yaml: "version: loom/v1\nagents:\n  writer: {type: ai}\n  flow:\n    type: graph\n    entry: draft\n    finish: [ask]\n    nodes:\n      draft: {agent: writer}\n      ask: {human: {prompt: OK?}}\n    edges:\n      - {from: draft, to: ask, branch: \"'ask'\", targets: [ask]}\n",
		want: []string{`12:9: agents.flow.edges[0]: an edge has one of to, branch and func; keep one of them`},
	},
	{
		name:         "graph edge to nowhere",
		yaml:         "version: loom/v1\nagents:\n  writer: {type: ai}\n  flow:\n    type: graph\n    entry: draft\n    finish: [ask]\n    nodes:\n      draft: {agent: writer}\n      ask: {human: {prompt: OK?}}\n    edges:\n      - {from: draft, to: aks}\n",
		want:         []string{`12:27: agents.flow.edges[0].to: edge to "aks" is not a node of the graph; did you mean ask? (declare it under nodes)`},
		beyondSchema: true,
	},
	{
		name:         "graph unknown branch target",
		yaml:         "version: loom/v1\nagents:\n  writer: {type: ai}\n  flow:\n    type: graph\n    entry: draft\n    finish: [ask]\n    nodes:\n      draft: {agent: writer}\n      ask: {human: {prompt: OK?}}\n    edges:\n      - {from: draft, branch: \"'ask'\", targets: [ask, drafts]}\n",
		want:         []string{`12:55: agents.flow.edges[0].targets[1]: branch target "drafts" is not a node of the graph; did you mean draft? (declare it under nodes)`},
		beyondSchema: true,
	},
	{
		name:         "graph node that never ends",
		yaml:         "version: loom/v1\nagents:\n  writer: {type: ai}\n  flow:\n    type: graph\n    entry: draft\n    nodes:\n      draft: {agent: writer}\n      loop: {agent: writer}\n    edges:\n      - {from: draft, to: loop}\n      - {from: loop, to: draft}\n",
		want:         []string{`8:7: agents.flow.nodes.draft: node "draft" never leads to end; add it to finish, or an edge from it to end`, `9:7: agents.flow.nodes.loop: node "loop" never leads to end; add it to finish, or an edge from it to end`},
		beyondSchema: true,
	},
	{
		name:         "graph branch that does not compile",
		yaml:         "version: loom/v1\nagents:\n  writer: {type: ai}\n  flow:\n    type: graph\n    entry: draft\n    finish: [ask]\n    nodes:\n      draft: {agent: writer}\n      ask: {human: {prompt: OK?}}\n    edges:\n      - {from: draft, branch: \"state.ok ? 'ask' :\", targets: [ask]}\n",
		want:         []string{`12:31: agents.flow.edges[0].branch: the branch expression cannot run: SyntaxError at the end of the expression (is it cut short?): Unexpected token ); ` + exprHintForTest},
		beyondSchema: true,
	},
	{
		name:         "graph branch with a syntax error inside",
		yaml:         "version: loom/v1\nagents:\n  writer: {type: ai}\n  flow:\n    type: graph\n    entry: draft\n    finish: [ask]\n    nodes:\n      draft: {agent: writer}\n      ask: {human: {prompt: OK?}}\n    edges:\n      - {from: draft, branch: \"state.ok ?? ) 'ask'\", targets: [ask]}\n",
		want:         []string{`12:31: agents.flow.edges[0].branch: the branch expression cannot run: SyntaxError at line 1, column 13 of the expression: Unexpected token ); ` + exprHintForTest},
		beyondSchema: true,
	},
	{
		name:         "graph input that does not compile",
		yaml:         "version: loom/v1\nagents:\n  writer: {type: ai}\n  flow:\n    type: graph\n    entry: draft\n    finish: [draft]\n    nodes:\n      draft: {agent: writer, input: \"{topic: state.topic\"}\n",
		want:         []string{`9:37: agents.flow.nodes.draft.input: the input expression cannot run: SyntaxError at the end of the expression (is it cut short?): Unexpected token ); ` + exprHintForTest},
		beyondSchema: true,
	},
	{
		name:         "graph nothing starts",
		yaml:         "version: loom/v1\nagents:\n  writer: {type: ai}\n  flow:\n    type: graph\n    finish: [draft]\n    nodes:\n      draft: {agent: writer}\n",
		want:         []string{`5:5: agents.flow: nothing starts the graph; set entry: draft, or add an edge from start`},
		beyondSchema: true,
	},
	{
		name: "graph negative max_steps",
		yaml: "version: loom/v1\nagents:\n  writer: {type: ai}\n  flow:\n    type: graph\n    entry: draft\n    finish: [draft]\n    max_steps: -1\n    nodes:\n      draft: {agent: writer}\n",
		want: []string{`8:16: agents.flow.max_steps: max_steps is -1; leave it out for the default, or give a positive bound`},
	},
	{
		name:         "graph unknown agent and branch function",
		yaml:         "version: loom/v1\nagents:\n  writer: {type: ai}\n  flow:\n    type: graph\n    entry: draft\n    finish: [ask]\n    nodes:\n      draft: {agent: writr}\n      ask: {human: {prompt: OK?}}\n    edges:\n      - {from: draft, func: pick, targets: [ask]}\n",
		want:         []string{`9:22: agents.flow.nodes.draft.agent: unknown agent or tool "writr"; did you mean writer? (declare it under agents, or register it in Go)`, `12:29: agents.flow.edges[0].func: unknown branch function "pick"; register it in Go, in spec.Registry.Branches`},
		beyondSchema: true,
	},
	{
		name:         "missing instructions file",
		yaml:         "version: loom/v1\nagents:\n  helper:\n    type: ai\n    instructions_file: prompts/helper.md\n",
		want:         []string{`5:24: agents.helper.instructions_file: cannot read prompts/helper.md: no such file or directory; paths are relative to the folder of loom.yaml`},
		beyondSchema: true,
	},
	{
		name:         "missing schema file",
		yaml:         "version: loom/v1\nagents:\n  helper:\n    type: ai\n    output_schema: ./out.json\n",
		want:         []string{`5:20: agents.helper.output_schema: cannot read schema ./out.json: no such file or directory; paths are relative to the folder of loom.yaml`},
		beyondSchema: true,
	},
	{
		name:         "unknown reference",
		yaml:         "version: loom/v1\nagents:\n  helper:\n    type: ai\n    tools: [serch]\n",
		want:         []string{`5:13: agents.helper.tools[0]: unknown agent or tool "serch"; did you mean search? (declare it under agents, or register it in Go)`},
		beyondSchema: true,
	},
	{
		name:         "unknown entry",
		yaml:         "version: loom/v1\nentry: helpr\nagents:\n  helper: {type: ai}\n",
		want:         []string{`2:8: entry: unknown agent or tool "helpr"; did you mean helper? (declare it under agents, or register it in Go)`},
		beyondSchema: true,
	},
	{
		name:         "reference cycle",
		yaml:         "version: loom/v1\nagents:\n  a:\n    type: sequence\n    steps: [b]\n  b:\n    type: reflect\n    worker: c\n    reviewer: c\n  c:\n    type: ai\n    tools: [a]\n",
		want:         []string{`12:13: agents.c.tools[0]: reference cycle: a -> b -> c -> a; an agent cannot use itself, directly or through others`},
		beyondSchema: true,
	},
	{
		name:         "constructor error at its entry",
		yaml:         "version: loom/v1\nagents:\n  helper:\n    type: ai\n    instructions: \"{{.x\"\n",
		want:         []string{`3:3: agents.helper: invalid agent configuration: agent "helper": instructions template: template: helper:1: unclosed action; fix the ai entry's settings ('loom schema' lists its keys)`},
		beyondSchema: true,
	},
	{
		name:         "sampling out of range",
		yaml:         "version: loom/v1\nagents:\n  helper:\n    type: ai\n    sampling: {temperature: 3}\n",
		want:         []string{`3:3: agents.helper: agent "helper": invalid option temperature=3: must be in [0, 2]; fix the ai entry's settings ('loom schema' lists its keys)`},
		beyondSchema: true,
	},
}

func TestLoaderRejects(t *testing.T) {
	reg := spec.Registry{Tools: map[string]agent.Agent{"search": search(t)}, Stores: map[string]vector.Store{"handbook": handbook(t)}}
	for _, tc := range loaderCases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"loom.yaml": tc.yaml}
			for k, v := range tc.files {
				files[k] = v
			}
			path := write(t, files)
			p, err := spec.Load(path, reg)
			require.Error(t, err)
			require.Nil(t, p)
			require.ErrorIs(t, err, spec.ErrInvalid)
			var errs spec.Errors
			require.ErrorAs(t, err, &errs)
			got := make([]string, len(errs))
			for i, e := range errs {
				require.Equal(t, path, e.File)
				got[i] = strings.TrimPrefix(e.Error(), path+":")
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.yaml")
	_, err := spec.Load(path, spec.Registry{})
	require.ErrorIs(t, err, spec.ErrInvalid)
	require.EqualError(t, err, path+": cannot read the file: no such file or directory")
}

func TestNotYAML(t *testing.T) {
	path := write(t, map[string]string{"loom.yaml": "version: loom/v1\nagents:\n  a: [\n"})
	_, err := spec.Load(path, spec.Registry{})
	var e *spec.Error
	require.ErrorAs(t, err, &e)
	require.Positive(t, e.Line)
	require.Contains(t, e.Msg, "not valid YAML")
}

func TestRelativePathsFromTheFilesFolder(t *testing.T) {
	path := write(t, map[string]string{
		"loom.yaml":         "version: loom/v1\nentry: helper\nagents:\n  helper:\n    type: ai\n    instructions_file: prompts/helper.md\n    input_schema: schemas/in.yaml\n",
		"prompts/helper.md": "Answer in {{.language}}.",
		"schemas/in.yaml":   "type: object\nproperties:\n  language: {type: string}\nrequired: [language]\n",
	})
	d, err := spec.Parse(path)
	require.NoError(t, err)
	cfg := d.Entry("helper").Config.(*spec.AI)
	require.Equal(t, "Answer in {{.language}}.", cfg.Instructions)
	require.JSONEq(t, `{"type":"object","properties":{"language":{"type":"string"}},"required":["language"]}`, string(cfg.InputSchema.JSON))

	p, err := spec.Load(path, spec.Registry{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	require.Equal(t, "helper", p.Entry.Info().Name)
	require.JSONEq(t, string(cfg.InputSchema.JSON), string(p.Entry.Info().InputSchema))
}

func TestModelsFromTheRegistry(t *testing.T) {
	path := write(t, map[string]string{"loom.yaml": "version: loom/v1\nmodel: openai:gpt-4o-mini\nagents:\n  a: {type: ai}\n  b: {type: ai, model: 'anthropic:claude'}\n"})
	var opened []string
	_, err := spec.Load(path, spec.Registry{Models: func(ref string) (model.Model, error) {
		opened = append(opened, ref)
		return nil, errors.New("no keys in tests")
	}})
	require.ErrorIs(t, err, spec.ErrInvalid)
	require.Equal(t, []string{"openai:gpt-4o-mini", "anthropic:claude"}, opened)
	require.Contains(t, err.Error(), "agents.a: model openai:gpt-4o-mini: no keys in tests")
}

func TestSchemaRefInline(t *testing.T) {
	path := write(t, map[string]string{"loom.yaml": "version: loom/v1\nagents:\n  f:\n    type: function\n    code: input.a + input.b\n    input_schema:\n      type: object\n      properties: {a: {type: number}, b: {type: number}}\n"})
	d, err := spec.Parse(path)
	require.NoError(t, err)
	f := d.Entry("f").Config.(*spec.Function)
	var s map[string]any
	require.NoError(t, json.Unmarshal(f.InputSchema.JSON, &s))
	require.Equal(t, "object", s["type"])
}

func TestDeclaredWorkflowRuns(t *testing.T) {
	exec, err := sandbox.NewInProcess(sandbox.InProcessConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, exec.Close()) })
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "add", `{"a":2,"b":3}`)),
		modeltest.Text("2 + 3 = 5"),
	)
	path := write(t, map[string]string{"loom.yaml": `version: loom/v1
model: scripted
entry: flow
agents:
  add:
    type: function
    description: Adds a and b.
    code: "({sum: input.a + input.b})"
    input_schema:
      type: object
      properties: {a: {type: number}, b: {type: number}}
      required: [a, b]
  helper:
    type: ai
    instructions: Use add.
    tools: [add]
  shout:
    type: function
    code: "input.message.toUpperCase()"
  flow:
    type: sequence
    steps: [helper, shout]
`})
	p, err := spec.Load(path, spec.Registry{Sandbox: exec, Models: func(ref string) (model.Model, error) {
		require.Equal(t, "scripted", ref)
		return m, nil
	}})
	require.NoError(t, err)
	res, err := engine.New(engine.Config{}).Invoke(t.Context(), p.Entry, map[string]string{"message": "what is 2 + 3?"})
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, res.Decode(&out))
	require.Equal(t, "2 + 3 = 5", out["message"])
	require.Equal(t, "2 + 3 = 5", strings.ToLower(out["result"].(string)))
	require.Equal(t, "Use add.", m.Request(0).Messages[0].Text())
	require.JSONEq(t, `{"sum":5}`, string(m.Request(1).Messages[len(m.Request(1).Messages)-1].Parts[0].(model.ToolResult).Content))
}

// handbook is a vector store of three documents, embedded by a hash
// embedder.
func handbook(t *testing.T) vector.Store {
	t.Helper()
	emb, err := vector.NewHashEmbedder(0)
	require.NoError(t, err)
	s, err := vector.NewMemory(vector.MemoryConfig{Embedder: emb})
	require.NoError(t, err)
	require.NoError(t, s.Upsert(t.Context(),
		vector.Document{ID: "leave", Text: "Annual leave is 25 days a year."},
		vector.Document{ID: "expenses", Text: "Expenses are refunded within 30 days."},
		vector.Document{ID: "laptops", Text: "Laptops are replaced every three years."},
	))
	return s
}

func TestRetrieverAsATool(t *testing.T) {
	m := modeltest.New(t,
		modeltest.ToolCalls(modeltest.Call("c1", "docs", `{"query":"how many days of annual leave","k":1}`)),
		modeltest.Text("25 days."),
	)
	path := write(t, map[string]string{"loom.yaml": `version: loom/v1
model: scripted
entry: helper
agents:
  docs:
    type: retriever
    description: The staff handbook.
    store: handbook
    k: 2
  helper:
    type: ai
    tools: [docs]
`})
	p, err := spec.Load(path, spec.Registry{
		Stores: map[string]vector.Store{"handbook": handbook(t)},
		Models: func(string) (model.Model, error) { return m, nil },
	})
	require.NoError(t, err)
	res, err := engine.New(engine.Config{}).Invoke(t.Context(), p.Entry, "How long is annual leave?")
	require.NoError(t, err)
	require.Equal(t, "25 days.", res.Text())
	tools := m.Request(0).Tools
	require.Len(t, tools, 1)
	require.Equal(t, "docs", tools[0].Name)
	require.Equal(t, "The staff handbook.", tools[0].Description)
	result := m.Request(1).Messages[len(m.Request(1).Messages)-1].Parts[0].(model.ToolResult).Content
	require.Contains(t, string(result), `"id":"leave"`)
	require.NotContains(t, string(result), `"id":"expenses"`, "the model asked for one match")
}

// exprHintForTest is the hint of an expression that cannot run.
const exprHintForTest = `an expression is JavaScript whose value is used, over the constant state, e.g. state.score > 0.5 ? "publish" : "revise"`
