// Package hostile runs the sandbox's hostile-code catalogue (the attack and
// fault classes a model's snippet can express) through loom's real
// commands, as child processes built from their main packages: loom run,
// loom serve, loom mcp serve and loom eval, and the workflow-code-execution
// example. Each command must end as a run does, tell the model what
// happened, run the next snippet cleanly, and leave no worker process
// behind; a command running code in process must refuse unless the user
// says the code is trusted. It has only tests.
package hostile
