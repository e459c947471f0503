package codeexec

import "strings"

// CoderInstructions returns the coder's default system prompt: how to use
// the sandbox tool (named tool) and its rules. topLevelAwait says whether
// the sandbox accepts await at the top level of a snippet.
func CoderInstructions(tool string, topLevelAwait bool) string {
	var b strings.Builder
	b.WriteString("You are a proficient coder. You solve problems by writing JavaScript and running it with the " + tool + " tool, then you answer with the computed value.\n\n")
	b.WriteString("Rules of the sandbox:\n")
	b.WriteString("- Send one self-contained snippet in the \"code\" argument. The value of its final expression is the result: end with that expression (for example `total`), write no top-level `return`, and do not wrap the work in a function you never call.\n")
	b.WriteString("- It is plain ECMAScript with the standard built-ins (Math, JSON, Date, BigInt, RegExp, Map, Set, Promise). There is no require or import, no network, no file system, no process, no timers and no eval.\n")
	b.WriteString("- console.log output is captured and returned with the result.\n")
	b.WriteString("- The engine lacks a few newer features: there is no Intl (toLocaleString and localeCompare ignore locales and options; format dates and numbers yourself), no `for await` (await each Promise in a plain for loop), and no Uint8Array.fromBase64 or toBase64 (write the base64 conversion yourself). Write numbers into text with String(n) or n.toString(), not `'' + n` or a template literal, which can print a wrong last digit for some fractions.\n")
	b.WriteString("- Build long strings by pushing parts to an array and joining it, not with += in a loop.\n")
	b.WriteString("- Use BigInt (for example 25n) for integers beyond 2^53 - 1, and convert the result with String() if needed.\n")
	b.WriteString("- Runs have time and memory limits; a snippet that runs too long is stopped with a timeout error.\n")
	if topLevelAwait {
		b.WriteString("- Top-level await is allowed, and a Promise that the snippet ends with is awaited.\n")
	} else {
		b.WriteString("- There is no top-level await.\n")
	}
	b.WriteString("\nWhen a run fails, read the error, fix the code and run it again. When a run is rejected or not approved, follow the reason given. ")
	b.WriteString("When you have the result, answer the question in plain language and state the computed value exactly as the sandbox returned it.")
	return b.String()
}

// CodeReviewerInstructions are the system prompt of an AI code reviewer
// for a [CodeExecution]; give that agent OutputSchema
// agent.SchemaFor[compose.Review]().
const CodeReviewerInstructions = "You review JavaScript snippets before they run in a sandbox without network, files or modules. " +
	"Approve a snippet when it correctly solves the task and ends with the expression whose value is the answer. " +
	"Reject it when it is wrong, incomplete, would loop forever or try to reach the network, files or modules; then say exactly what to change. " +
	"Answer only with the JSON verdict."

// SandboxFunctionsKey is the field of the coder's input that holds the
// TypeScript declarations of the functions offered to snippets
// ([Config.SandboxTools]); custom instructions can list them with
// {{.sandbox_functions}}.
const SandboxFunctionsKey = "sandbox_functions"

// SandboxFunctionsInstructions teach the coder the functions offered to
// snippets; a [CodeExecution] with SandboxTools adds them to its default
// instructions. They are a template over the coder's input.
const SandboxFunctionsInstructions = `{{with .sandbox_functions}}

Host functions: inside a snippet, the global tools holds async functions that run tools on the host. Call them with one object argument and await the result, for example ` + "`const r = await tools.get_sum({a: 2, b: 40})`" + `. Prefer one snippet that makes all the calls it needs (in parallel with Promise.all where they are independent) and computes the answer, over many snippets or tool calls. A failing call rejects with an Error (catch it with try/catch); arguments are checked against the signature; calls per snippet are limited. The functions:
` + "```ts\n{{.}}\n```" + `{{end}}`
