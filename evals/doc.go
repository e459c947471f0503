// Package evals measures how well a model, or a whole loom workflow, solves
// programming tasks by running what it produces.
//
//   - HumanEval in JavaScript. loom does not ship HumanEval: it reads a
//     user's copy of the official HumanEval.jsonl.gz (MIT,
//     github.com/openai/human-eval) found by [FindHumanEval], and translates
//     each problem's Python test into JavaScript with its own translator
//     ([Translate]): literals, `assert candidate(...) == ...`, float
//     tolerances (abs(x - y) < eps, math.isclose) and a few hand-written
//     overrides ([Overrides], each with its reason). The Python signature
//     becomes a JavaScript stub with a camelCase name ([JSName]). The
//     translation was audited against a known-good answer for every
//     problem: what JavaScript cannot express as written (a float 3.0 told
//     apart from the integer 3, integers past 2^53, Python's round-half-to-
//     even left unsaid in a docstring) is overridden with its reason, while
//     tuples and lists (both arrays), dict order (ignored by the assert
//     shim, as Python's == does), `is True` (strict equality) and -0 (equal
//     to 0, as in Python) need nothing.
//   - loom-tasks ([Tasks]), forty tasks written for loom (MIT) of the kinds
//     users give the Coder→Sandbox workflow: arithmetic, dates (fixed
//     dates), string and list processing, async code and JSON shaping, each
//     with a checked answer ([Task.Verify]). They measure the workflow's
//     answer, not a function ([RunTasks]).
//
// [Run] asks a solver (any agent: the Coder→Sandbox workflow or a plain AI
// agent) for each problem's code, n samples per problem, takes the code
// from a fenced block or a "code" field ([ExtractCode]; else the last
// snippet the solver ran with the sandbox tool), and runs it with
// the problem's tests in a fresh sandbox run under the executor's limits,
// with an assert shim ([Shim]) in place of node:assert. The [Report] holds
// pass@1 and pass@k ([PassAtK]), every sample's [Class] (syntax,
// exception, assertion, timeout, sandbox limit, no code …), tokens, cost,
// latency percentiles, throughput and error rate; with a tracer and a meter
// provider the evaluation is also a trace (one span per sample, the
// solver's runs beneath) and metrics. [Diff] compares two reports problem by
// problem.
//
// # Zero and negative values
//
// As everywhere in loom, a zero field of a config means its documented
// default and a negative one is an error.
package evals
