// Package jstool is the sandbox as the agent layer sees it: the evaluateJs
// tool ([New]), an agent that runs the code it is given on a
// [sandbox.Executor] and returns {"result": …, "logs": […]}, with a
// description that teaches a model the sandbox's rules and limits.
//
// With [Config.Toolsets] the same tool runs code mode: the toolsets' tools are
// offered to the code as async functions, tools.<name>(args), each call a
// nested run of the tool's run, under the snippet's deadline and at most
// [MaxCallDepth] code-mode levels deep ([CallDepth]). [Signature] and
// [Declarations] write the TypeScript declarations that list those
// functions for a model, and [AdmissionGuardrail] refuses code the sandbox
// would refuse before any executor sees it.
//
// The package builds on package sandbox, which imports nothing of the
// agent layer.
package jstool
