package spec

// Version is the only format version this package reads.
const Version = "loom/v1"

// File is a loom/v1 file as written.
type File struct {
	// Version must be loom/v1.
	Version string `yaml:"version" json:"version" jsonschema:"enum=loom/v1"`
	// Name names the project.
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Description says what the project does.
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Model is the default model of every entry that names none, as
	// "provider:model" (openai:gpt-4o-mini).
	Model string `yaml:"model,omitempty" json:"model,omitempty"`
	// Entry names the agent that runs by default.
	Entry string `yaml:"entry,omitempty" json:"entry,omitempty"`
	// Agents are the declared agents, by name. Each is one of the entry
	// types, chosen by its type key.
	Agents map[string]any `yaml:"agents" json:"agents"`
	// Resources are what the project offers MCP clients to read under
	// loom mcp serve: project files and text, at fixed URIs or URI
	// templates.
	Resources []Resource `yaml:"resources,omitempty" json:"resources,omitempty"`
	// Knowledge are the project's documents, as glob patterns of project
	// files ("docs/*.md"; a hidden file, as .env.local, only when the
	// pattern names it): under loom mcp serve each is a resource, and
	// the template knowledge:///{path} reads any of them, its path
	// completed from the documents' names and contents.
	Knowledge []string `yaml:"knowledge,omitempty" json:"knowledge,omitempty"`
	// Prompts are prompts the project offers MCP clients, by name, beside
	// its AI agents' instructions.
	Prompts map[string]Prompt `yaml:"prompts,omitempty" json:"prompts,omitempty"`
}

// Resource declares a resource loom mcp serve offers: one URI, or every
// URI a template matches; its contents inline text or a project file.
type Resource struct {
	// URI is its address, as "docs://guide"; URITemplate instead offers
	// every URI the RFC 6570 template matches, as "docs://guide/{topic}".
	URI         string `yaml:"uri,omitempty" json:"uri,omitempty"`
	URITemplate string `yaml:"uri_template,omitempty" json:"uri_template,omitempty"`
	// Name names it to a person; Description says what it holds.
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// MIMEType is its media type; by default the file's by its extension,
	// or text/plain. A textual type (text/*, JSON, YAML, XML, JavaScript)
	// is read as text, any other as bytes.
	MIMEType string `yaml:"mime_type,omitempty" json:"mime_type,omitempty"`
	// Text is the contents; for a template, a Go text/template over the
	// URI's variables ({{.topic}}).
	Text string `yaml:"text,omitempty" json:"text,omitempty"`
	// File is a project file holding the contents, read when a client
	// asks; for a template, {var} in it stands for a variable's value,
	// one path segment that does not start with a dot ("docs/{topic}.md":
	// a client cannot name .env.local).
	File string `yaml:"file,omitempty" json:"file,omitempty"`
	// Complete lists values of a template's variables that clients may
	// complete.
	Complete map[string][]string `yaml:"complete,omitempty" json:"complete,omitempty"`
}

// Prompt declares a prompt: its arguments and its messages.
type Prompt struct {
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Arguments are the values a client fills in, in order.
	Arguments []PromptArgument `yaml:"arguments,omitempty" json:"arguments,omitempty"`
	// Messages are the prompt's messages, in order.
	Messages []PromptMessage `yaml:"messages" json:"messages" jsonschema:"minItems=1"`
}

// PromptArgument is one argument of a [Prompt].
type PromptArgument struct {
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Required arguments must be given to get the prompt.
	Required bool `yaml:"required,omitempty" json:"required,omitempty"`
	// Values are what a client may complete the argument with.
	Values []string `yaml:"values,omitempty" json:"values,omitempty"`
}

// PromptMessage is one message of a [Prompt]: exactly one of text,
// text_file, image, audio or resource.
type PromptMessage struct {
	// Role is user (the default) or assistant.
	Role string `yaml:"role,omitempty" json:"role,omitempty" jsonschema:"enum=user,enum=assistant"`
	// Text is a Go text/template over the arguments ({{.topic}});
	// TextFile reads it from a project file.
	Text     string `yaml:"text,omitempty" json:"text,omitempty"`
	TextFile string `yaml:"text_file,omitempty" json:"text_file,omitempty"`
	// Image and Audio are project files, sent as their bytes.
	Image *Media `yaml:"image,omitempty" json:"image,omitempty"`
	Audio *Media `yaml:"audio,omitempty" json:"audio,omitempty"`
	// Resource is an embedded resource.
	Resource *PromptResource `yaml:"resource,omitempty" json:"resource,omitempty"`
}

// Media is an image or audio file of the project.
type Media struct {
	File string `yaml:"file" json:"file"`
	// MIMEType is its media type; by default the file's by its extension.
	MIMEType string `yaml:"mime_type,omitempty" json:"mime_type,omitempty"`
	data     []byte
}

// PromptResource is a resource embedded in a prompt: text (a template
// over the arguments) or a project file, at a URI (a template too).
type PromptResource struct {
	URI      string `yaml:"uri" json:"uri"`
	MIMEType string `yaml:"mime_type,omitempty" json:"mime_type,omitempty"`
	Text     string `yaml:"text,omitempty" json:"text,omitempty"`
	File     string `yaml:"file,omitempty" json:"file,omitempty"`
	data     []byte
}

// Sampling are the model options an entry may set.
type Sampling struct {
	// Temperature in [0, 2].
	Temperature *float64 `yaml:"temperature,omitempty" json:"temperature,omitempty"`
	// TopP in [0, 1].
	TopP *float64 `yaml:"top_p,omitempty" json:"top_p,omitempty"`
	// MaxTokens bounds each answer.
	MaxTokens int `yaml:"max_tokens,omitempty" json:"max_tokens,omitempty"`
}

// AI declares an agent.AI.
type AI struct {
	Type        string `yaml:"type" json:"type"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Model overrides the file's model.
	Model string `yaml:"model,omitempty" json:"model,omitempty"`
	// Instructions is the system prompt (a text/template over the input).
	Instructions string `yaml:"instructions,omitempty" json:"instructions,omitempty"`
	// InstructionsFile reads the instructions from a file, relative to this
	// file's folder.
	InstructionsFile string `yaml:"instructions_file,omitempty" json:"instructions_file,omitempty"`
	// Tools name declared agents, registered tools and functions, and mcp
	// entries (all of the server's tools).
	Tools []string `yaml:"tools,omitempty" json:"tools,omitempty"`
	// InputSchema and OutputSchema are JSON Schemas, inline or as a path
	// to a JSON or YAML file.
	InputSchema  *SchemaRef `yaml:"input_schema,omitempty" json:"input_schema,omitempty"`
	OutputSchema *SchemaRef `yaml:"output_schema,omitempty" json:"output_schema,omitempty"`
	// InputKey and OutputKey are the text fields of the default schemas.
	InputKey  string `yaml:"input_key,omitempty" json:"input_key,omitempty"`
	OutputKey string `yaml:"output_key,omitempty" json:"output_key,omitempty"`
	// Sampling options sent with every model call.
	Sampling Sampling `yaml:"sampling,omitempty" json:"sampling,omitempty"`
	// MaxTurns bounds the model calls of one run.
	MaxTurns int `yaml:"max_turns,omitempty" json:"max_turns,omitempty"`
	// ToolChoice is auto, none or required.
	ToolChoice string `yaml:"tool_choice,omitempty" json:"tool_choice,omitempty" jsonschema:"enum=auto,enum=none,enum=required"`
	// Guardrails check the input and the answer; see [Guardrails].
	Guardrails *Guardrails `yaml:"guardrails,omitempty" json:"guardrails,omitempty"`
}

// Sandbox declares the executor code runs on.
type Sandbox struct {
	// Kind is isolated (worker processes with OS limits, the default and
	// the boundary for untrusted code) or in_process (goja in the host
	// process: any snippet can kill the process, so it is for trusted code
	// only and needs Trusted).
	Kind string `yaml:"kind,omitempty" json:"kind,omitempty" jsonschema:"enum=isolated,enum=in_process"`
	// Trusted declares that the code this entry runs (a model's snippets,
	// expressions, a function's code) is trusted. kind: in_process is
	// refused without it; a program that loads the file must also consent
	// ([Registry].TrustedCode; loom's --trusted-code flag).
	Trusted bool `yaml:"trusted,omitempty" json:"trusted,omitempty"`
	// Timeout is each run's wall-time limit, as a Go duration ("5s").
	Timeout string `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	// MemoryMB is each run's heap limit in MiB.
	MemoryMB int `yaml:"memory_mb,omitempty" json:"memory_mb,omitempty"`
}

// SandboxCalls bound the sandbox tool calls of one snippet
// (sandbox.CallLimits); zero or absent means the default.
type SandboxCalls struct {
	// MaxCalls is the most calls one snippet may start (default
	// sandbox.DefaultMaxCalls).
	MaxCalls int `yaml:"max_calls,omitempty" json:"max_calls,omitempty" jsonschema:"minimum=0"`
	// MaxInFlight is the most calls running at once (default
	// sandbox.DefaultMaxInFlight).
	MaxInFlight int `yaml:"max_in_flight,omitempty" json:"max_in_flight,omitempty" jsonschema:"minimum=0"`
}

// CodeExecution declares a codeexec.CodeExecution, the Coder→Sandbox
// workflow.
type CodeExecution struct {
	Type         string `yaml:"type" json:"type"`
	Description  string `yaml:"description,omitempty" json:"description,omitempty"`
	Model        string `yaml:"model,omitempty" json:"model,omitempty"`
	Instructions string `yaml:"instructions,omitempty" json:"instructions,omitempty"`
	// InstructionsFile reads the coder's instructions from a file.
	InstructionsFile string   `yaml:"instructions_file,omitempty" json:"instructions_file,omitempty"`
	Sampling         Sampling `yaml:"sampling,omitempty" json:"sampling,omitempty"`
	// Tools offer the coder more tools beside the sandbox: declared agents,
	// registered tools and functions, and mcp entries (all of the server's
	// tools).
	Tools []string `yaml:"tools,omitempty" json:"tools,omitempty"`
	// SandboxTools are offered to the coder's snippets as async functions
	// (const r = await tools.name(args)): declared agents, registered
	// tools and functions, and mcp entries (all of the server's tools).
	SandboxTools []string `yaml:"sandbox_tools,omitempty" json:"sandbox_tools,omitempty"`
	// SandboxCalls bound the calls of one snippet to its sandbox tools.
	SandboxCalls SandboxCalls `yaml:"sandbox_calls,omitempty" json:"sandbox_calls,omitempty"`
	// Reviewer names the agent that reads each snippet before it runs.
	Reviewer string `yaml:"reviewer,omitempty" json:"reviewer,omitempty"`
	// ErrorHandler names the agent that turns a failure into a correction.
	ErrorHandler string `yaml:"error_handler,omitempty" json:"error_handler,omitempty"`
	// Approval is none (the default) or ask: each snippet waits for a
	// person's approval, asked as an "approval" question.
	Approval   string  `yaml:"approval,omitempty" json:"approval,omitempty" jsonschema:"enum=none,enum=ask"`
	MaxRetries int     `yaml:"max_retries,omitempty" json:"max_retries,omitempty"`
	MaxTurns   int     `yaml:"max_turns,omitempty" json:"max_turns,omitempty"`
	Sandbox    Sandbox `yaml:"sandbox,omitempty" json:"sandbox,omitempty"`
}

// Sequence declares a compose.Sequence.
type Sequence struct {
	Type        string   `yaml:"type" json:"type"`
	Description string   `yaml:"description,omitempty" json:"description,omitempty"`
	Steps       []string `yaml:"steps" json:"steps" jsonschema:"minItems=1"`
}

// Parallel declares a compose.Parallel.
type Parallel struct {
	Type           string   `yaml:"type" json:"type"`
	Description    string   `yaml:"description,omitempty" json:"description,omitempty"`
	Branches       []string `yaml:"branches" json:"branches" jsonschema:"minItems=1"`
	MaxConcurrency int      `yaml:"max_concurrency,omitempty" json:"max_concurrency,omitempty"`
	CollectErrors  bool     `yaml:"collect_errors,omitempty" json:"collect_errors,omitempty"`
}

// Map declares a compose.Map.
type Map struct {
	Type           string `yaml:"type" json:"type"`
	Description    string `yaml:"description,omitempty" json:"description,omitempty"`
	Field          string `yaml:"field" json:"field"`
	Agent          string `yaml:"agent" json:"agent"`
	ItemKey        string `yaml:"item_key,omitempty" json:"item_key,omitempty"`
	MaxConcurrency int    `yaml:"max_concurrency,omitempty" json:"max_concurrency,omitempty"`
	CollectErrors  bool   `yaml:"collect_errors,omitempty" json:"collect_errors,omitempty"`
}

// Reflect declares a compose.Reflect.
type Reflect struct {
	Type        string `yaml:"type" json:"type"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	Worker      string `yaml:"worker" json:"worker"`
	Reviewer    string `yaml:"reviewer" json:"reviewer"`
	MaxRounds   int    `yaml:"max_rounds,omitempty" json:"max_rounds,omitempty"`
	ReturnLast  bool   `yaml:"return_last,omitempty" json:"return_last,omitempty"`
}

// Route declares a compose.Route.
type Route struct {
	Type         string   `yaml:"type" json:"type"`
	Description  string   `yaml:"description,omitempty" json:"description,omitempty"`
	Model        string   `yaml:"model,omitempty" json:"model,omitempty"`
	Instructions string   `yaml:"instructions,omitempty" json:"instructions,omitempty"`
	Sampling     Sampling `yaml:"sampling,omitempty" json:"sampling,omitempty"`
	Agents       []string `yaml:"agents" json:"agents" jsonschema:"minItems=1"`
}

// Coordinator declares a compose.Coordinator.
type Coordinator struct {
	Type                 string `yaml:"type" json:"type"`
	Description          string `yaml:"description,omitempty" json:"description,omitempty"`
	Planner              string `yaml:"planner,omitempty" json:"planner,omitempty"`
	Coder                string `yaml:"coder" json:"coder"`
	Reviewer             string `yaml:"reviewer,omitempty" json:"reviewer,omitempty"`
	Executor             string `yaml:"executor,omitempty" json:"executor,omitempty"`
	ErrorHandler         string `yaml:"error_handler,omitempty" json:"error_handler,omitempty"`
	Arbiter              string `yaml:"arbiter,omitempty" json:"arbiter,omitempty"`
	Synthesizer          string `yaml:"synthesizer,omitempty" json:"synthesizer,omitempty"`
	AcceptOnDisagreement bool   `yaml:"accept_on_disagreement,omitempty" json:"accept_on_disagreement,omitempty"`
	MaxRounds            int    `yaml:"max_rounds,omitempty" json:"max_rounds,omitempty"`
	MaxSubtasks          int    `yaml:"max_subtasks,omitempty" json:"max_subtasks,omitempty"`
}

// Function declares JavaScript run in loom's sandbox: the code sees the
// run's input as the constant input, and its final expression's value is
// the output (with returns: content, its content). Its console lines go
// to the registry's log when it ends; code that names tools may log a
// line at once with await tools.log({message, level}) and report progress
// with await tools.progress({progress, total, message}) (code that does
// not is run without them, which costs less): progress, under loom mcp
// serve, a progress notification to a client that asked for them (await
// each call: calls not awaited may reach the host out of order, and a
// value not above the last one sent is dropped).
type Function struct {
	Type        string `yaml:"type" json:"type"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Code is the script; CodeFile reads it from a file instead.
	Code         string     `yaml:"code,omitempty" json:"code,omitempty"`
	CodeFile     string     `yaml:"code_file,omitempty" json:"code_file,omitempty"`
	InputSchema  *SchemaRef `yaml:"input_schema,omitempty" json:"input_schema,omitempty"`
	OutputSchema *SchemaRef `yaml:"output_schema,omitempty" json:"output_schema,omitempty"`
	Sandbox      Sandbox    `yaml:"sandbox,omitempty" json:"sandbox,omitempty"`
	// Returns says what the final value is: value (the default), the
	// output; or content, a list of content parts in MCP's shape, each
	// {type: text, text}, {type: image, data, mimeType}, {type: audio,
	// data, mimeType} (data in base64), {type: resource, resource: {uri,
	// mimeType, text or blob}} or {type: resource_link, uri, name,
	// mimeType, description}. Text, image and audio parts are the run's
	// result parts, its output {"result": the text parts joined}; served
	// over MCP, every part is content of the tool's result. A content
	// function has no output_schema.
	Returns string `yaml:"returns,omitempty" json:"returns,omitempty" jsonschema:"enum=value,enum=content"`
}

// Retriever declares a vector store's search tool (vector.NewSearchTool):
// a tool a model calls with a query, answered with the best matches. The
// store, with its embedder, is registered in Go ([Registry].Stores).
type Retriever struct {
	Type string `yaml:"type" json:"type"`
	// Description tells the model what the store holds.
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Store names a store in Registry.Stores.
	Store string `yaml:"store" json:"store"`
	// K is the number of matches by default; MaxK caps what the model may
	// ask for.
	K    int `yaml:"k,omitempty" json:"k,omitempty"`
	MaxK int `yaml:"max_k,omitempty" json:"max_k,omitempty"`
	// MinScore leaves out weaker matches (cosine similarity).
	MinScore float64 `yaml:"min_score,omitempty" json:"min_score,omitempty"`
}

// entryTypes maps each type key to its Go type's zero value.
var entryTypes = []struct {
	name string
	zero any
}{
	{"ai", AI{}},
	{"code_execution", CodeExecution{}},
	{"sequence", Sequence{}},
	{"parallel", Parallel{}},
	{"map", Map{}},
	{"reflect", Reflect{}},
	{"route", Route{}},
	{"coordinator", Coordinator{}},
	{"function", Function{}},
	{"retriever", Retriever{}},
	{"mcp", MCP{}},
	{"graph", Graph{}},
}

// EntryTypes returns the type keys an entry may have.
func EntryTypes() []string {
	out := make([]string, len(entryTypes))
	for i, t := range entryTypes {
		out[i] = t.name
	}
	return out
}
