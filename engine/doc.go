// Package engine runs agents: the [Engine] that gives every run a default
// model, limits, hooks, tracing, logging, usage totals and, with a
// checkpoint store, durability (runs that wait for a person, survive a
// restart and resume without repeating work); and sessions with
// conversation [Memory].
//
// # The engine
//
// An [Engine] is the counterpart of the TypeScript framework's engine
// class. Each [Engine.Run] gets a fresh budget under the engine's limits
// (max agent invocations, max tokens, timeout; see [agent.Limits]), the
// default model for AI agents that have none, the engine's hooks, tracer
// provider and metrics, and yields the run's events as they happen.
// [Engine.Invoke] drains the same stream into a [Result] with the output
// and the run's usage; [InvokeAs] decodes the output into a Go type.
// [Engine.Stats] totals every run, safely under concurrent runs. The root
// run's span gets loom.workflow.outcome ("answered", "failed", "limit" or
// "waiting"), also counted in the loom.workflow.outcomes metric.
//
// # Sessions and memory
//
// [Engine.NewSession] holds a multi-turn conversation. Before each turn the
// session's [Memory] returns the earlier turns, which reach the model as
// real user, assistant and tool messages, tool calls included (through
// the root run's history, [agent.Env] History); they are never flattened into the system prompt.
// [Buffer] keeps every turn; [Window] keeps the last N turns and sends the
// newest that fit a token budget, estimated by [EstimateTokens] (about four
// bytes per token) or a tokenizer of your choice. Memory is an interface so
// persistent or vector-backed stores can be plugged in.
//
// # Durable runs
//
// [Config.Checkpoints] saves each run to a checkpoint store (package
// checkpoint: memory, SQLite, PostgreSQL): a checkpoint when it starts,
// after every step (a model call, a nested run's end, a question) holding
// the events since the previous one, and when it ends or waits. A step that
// needs a person calls [agent.Ask]; the run then ends with an
// [*agent.InterruptedError] listing its questions, and [Engine.Pending]
// lists them later, from any process. [Engine.Resume] continues the run
// with the answers: it re-executes the root on the same ids, replaying the
// nested runs that had ended and the model calls that were made from their
// record (marked Replayed), so that no model call, tool call or code run is
// repeated; only the work after the cut runs. Answers are checked against
// their schemas before anything is written, and the run's head is claimed
// by compare-and-swap, so of two resumes of one state one advances and the
// other fails with [ErrAlreadyResumed].
//
// The journal is the one way a run is saved and resumed, whatever its
// agent: a graph's steps (package graph) are nested runs like an AI's tool
// runs, so Pending lists what any run waits for, nested or not, and
// Resume continues it.
//
// [Config.CheckpointPolicy] set to [CheckpointAtInterrupts] writes a run's
// checkpoints only when it waits (and then when it is resumed and ends):
// for a store that dies with the process, where nothing else is read.
//
// A run that waits saves, with its interrupt checkpoint and in the same
// write, a snapshot of its journal (a long run saves one as well every few
// hundred checkpoints, so that a resume after a kill reads a bounded tail), in which each nested run that ended is
// kept apart, still encoded, with its totals; the checkpoints after it
// point at it. Pending and Resume then read the head (or the snapshot and
// the checkpoints after it) instead of the whole line, decode only the
// runs that have not ended, and decode an ended one only when the resumed
// run replays it: a graph skips its ended steps ([github.com/loomwork/loom/agent/agentrt.SkipEnded]),
// so resuming it costs about the same after 10 steps as after 200. The
// checkpoints' events stay the record: a kill cannot separate a snapshot
// from the checkpoint it belongs to, a snapshot that cannot be read is
// ignored, and History and Fork read the checkpoints (a fork holds no
// snapshot until it waits).
//
// # History and fork
//
// [Engine.History] lists a run's checkpoints as [Step]s, each with the
// events it saved, the questions it waited for or the answers it got.
// [Engine.Fork] starts a new run as a copy of a run up to any of its
// checkpoints (time travel), optionally with the model response recorded
// there replaced ([ReplaceResponse]) or a nested run's output edited
// ([EditOutput]); resuming the fork continues from that point, replaying
// what came before. Forking at a question's checkpoint and resuming with
// another answer changes the answer. The original run is left as it was.
//
// Resume does not ask whether the run's first process is dead. Every
// checkpoint a run writes is compare-and-swap on the run's head, and the
// resume writes one first, so when the first process is still alive (a
// run paused for a person whose process kept waiting, or a process that
// stalled mid-step and was presumed dead) and another resumes its run,
// the run has one owner from then on: the first process's next checkpoint
// write loses, its run stops at once (its context is cancelled, so a tool
// call its late model reply asked for does not run) and ends with
// [ErrAlreadyResumed] naming the run and the checkpoint it lost. The step
// it was in when it stalled may have had effects (that step had started
// and not ended, the one kind of step a resume may repeat); nothing after
// it happens. A paused run's first process has already ended its run, so
// it writes nothing more; resuming the same answers again there fails
// with [ErrAlreadyResumed] as well.
//
// # Durable sessions
//
// A [Session] on an engine with checkpoints runs each turn as a durable
// run labelled with the session's id. A turn that waits for answers is
// resumed with [Session.Resume] (the model sees the whole conversation,
// and the turn is recorded once); [Engine.Resume] refuses it with
// [ErrSessionTurn]. A turn whose process was killed is finished with
// [Session.Continue], or by sending the same input again; with a [Stored]
// memory this works from any process, because the session writes which
// run a turn is before the run starts. A turn is recorded after its run's
// end is saved and keyed by its run id, so a kill between the two is
// repaired by the session's next call and can neither lose nor duplicate
// the turn.
//
// # Zero and negative values
//
// In every config struct of loom, a zero value means the documented
// default and a negative value is an error, unless a field's comment says
// otherwise (a negative retry budget, for example, means none); such a
// field carries the struct tag `config:"negative"`. A constructor refuses
// a negative value with an error that names the field; an [Engine] built
// from such a [Config] fails each run at once.
//
// # Logging
//
// [Config.Logger] logs each run's start and end at DEBUG and every event at
// [LevelTrace], a level below DEBUG.
package engine
