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
//     becomes a JavaScript stub with a camelCase name ([JSName]).
//
// # Zero and negative values
//
// As everywhere in loom, a zero field of a config means its documented
// default and a negative one is an error.
package evals
