package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"

	"github.com/loomwork/loom/checkpoint"
	"github.com/loomwork/loom/codeexec"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/flow"
	"github.com/loomwork/loom/internal/termtext"
)

const resumeUsage = `Usage: loom resume ID (--approve | --deny [--reason TEXT] | --answer JSON | --continue) [flags]
       loom resume --list [--db PATH]

Continues a run that loom run stopped because it waits for an answer, from
its checkpoint, without repeating the model calls and code runs it already
made. --approve and --deny answer every pending approval; --answer gives
the JSON answer of the one pending question. When the run asks again, it
stops again with the same id (or asks on the terminal). A run that asks
nothing is refused: it is still running in another process (loom serve,
loom run), or its process stopped mid-way; only in that second case,
--continue finishes it from its last checkpoint. --list shows the runs of
the checkpoint database that wait for answers (whoever started them: loom
run, a chat, the playground), each with its questions and how to answer.

Flags:
  --approve            approve the pending code
  --deny               decline it; --reason TEXT tells the agent why
  --answer JSON        the answer to a question that is not an approval
  --list               list the runs that wait for answers, newest first
  --continue           finish a run whose process stopped before it asked
                       or ended (a run still going elsewhere would lose its
                       next checkpoint to this one, and the step it was
                       taking would run twice)
  --log-level, --timeout, --db, --model, --root        as for loom run
  --no-trace, --allow-truncated, --trusted-code        as for loom run

Exit status: as for loom run.
`

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

func runResume(ctx context.Context, args []string, stdout, stderr io.Writer, con console) int {
	cmd := newCommand("loom resume", "resume", resumeUsage, stdout, stderr)
	fs, usageErr := cmd.fs, cmd.usageErr
	var rs runSettings
	settingsFlags(fs, &rs)
	var approve, deny, cont, list bool
	var reason, answer string
	fs.BoolVar(&approve, "approve", false, "approve")
	fs.BoolVar(&deny, "deny", false, "deny")
	fs.BoolVar(&cont, "continue", false, "finish a run whose process stopped")
	fs.BoolVar(&list, "list", false, "list the runs that wait")
	fs.StringVar(&reason, "reason", "", "why")
	fs.StringVar(&answer, "answer", "", "the answer")
	noTrace := noTraceFlag(fs)
	allowTruncated := allowTruncatedFlag(fs)
	pos, status, quit := cmd.parse(args)
	given := 0
	for _, b := range []bool{approve, deny, answer != "", cont} {
		if b {
			given++
		}
	}
	switch {
	case quit:
		return status
	case list && (len(pos) > 0 || given > 0):
		return usageErr("--list takes no run id and no answer: loom resume --list [--db PATH]")
	case list:
		return listWaiting(ctx, rs.db, stdout, stderr)
	case len(pos) != 1:
		return usageErr("give the id loom run printed: loom resume ID --approve")
	case !runIDPattern.MatchString(pos[0]):
		return usageErr("%q is not a run id", pos[0])
	case given != 1:
		return usageErr("give one of --approve, --deny, --answer JSON or --continue")
	case reason != "" && !deny:
		return usageErr("--reason goes with --deny")
	case answer != "" && !json.Valid([]byte(answer)):
		return usageErr("--answer %q is not JSON", answer)
	}
	runID := pos[0]
	dbPath := rs.db
	if dbPath == "" {
		var err error
		if dbPath, err = defaultCheckpointPath(); err != nil {
			fmt.Fprintf(stderr, "loom resume: %v\n", err)
			return exitInvalid
		}
	}
	rec, err := readRecord(ctx, dbPath, runID)
	if err != nil {
		fmt.Fprintf(stderr, "loom resume: %v\n", err)
		return exitInvalid
	}
	rs.db = dbPath
	if !*noTrace {
		rs.trace = "resume"
	}
	rs.asker = &con
	l, err := load(ctx, rec.File, rs, con.getenv, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "loom resume: %v\n", err)
		return exitInvalid
	}
	defer l.close()
	a, err := l.pick(rec.Agent)
	if err != nil {
		fmt.Fprintf(stderr, "loom resume: %v\n", err)
		return exitInvalid
	}
	pending, err := l.pending(ctx, a, runID)
	if err != nil {
		fmt.Fprintf(stderr, "loom resume: %v\n", err)
		return exitFailed
	}
	switch {
	case cont && len(pending) > 0:
		return usageErr("run %s waits for %d answer(s) (%s): give them with --approve, --deny or --answer JSON, not --continue", runID, len(pending), pending[0].ID)
	case !cont && len(pending) == 0:
		return noQuestion(ctx, l, runID, stderr)
	}
	answers := map[string]json.RawMessage{}
	for _, q := range pending {
		switch {
		case answer != "":
			if len(pending) > 1 {
				return usageErr("run %s waits for %d answers; --answer gives one", runID, len(pending))
			}
			answers[q.ID] = json.RawMessage(answer)
		case q.Kind != codeexec.ApprovalKind:
			return usageErr("question %s asks for %s, not an approval: answer it with --answer JSON", q.ID, q.Kind)
		default:
			ap := codeexec.Approval{Approved: approve}
			if deny {
				ap.Reason = reason
				if ap.Reason == "" {
					ap.Reason = codeexec.DeclinedReason
				}
			}
			answers[q.ID], _ = json.Marshal(ap)
		}
	}
	r := newRunner("loom resume", l, a, rec.File, con, stdout, stderr)
	r.allowTruncated = *allowTruncated
	stream := l.resume(ctx, a, runID, answers)
	// A chat's turn goes on through its session: the model sees the
	// conversation, and the turn is remembered once.
	if id := sessionOf(ctx, l, runID); id != "" {
		sess, closeSess, err := l.session(ctx, a, id)
		if err != nil {
			fmt.Fprintf(stderr, "loom resume: %v\n", err)
			return exitFailed
		}
		defer closeSess()
		r.sess = sess
		if cont {
			return stopped(ctx, "resume", r.finish(ctx, sess), stderr)
		}
		stream = sess.Resume(ctx, runID, answers)
	}
	_, code := r.drive(ctx, stream, runID)
	return stopped(ctx, "resume", code, stderr)
}

// listWaiting prints the runs of the checkpoint database that wait for
// answers, newest first, each as loom run prints a run it stops.
func listWaiting(ctx context.Context, dbPath string, stdout, stderr io.Writer) int {
	if dbPath == "" {
		var err error
		if dbPath, err = defaultCheckpointPath(); err != nil {
			fmt.Fprintf(stderr, "loom resume: %v\n", err)
			return exitInvalid
		}
	}
	store, err := openCheckpoints(ctx, dbPath)
	if err != nil {
		fmt.Fprintf(stderr, "loom resume: %v\n", err)
		return exitInvalid
	}
	defer store.Close()
	infos, err := store.Runs(ctx, checkpoint.RunFilter{})
	if err != nil {
		fmt.Fprintf(stderr, "loom resume: %v\n", err)
		return exitFailed
	}
	e := engine.New(engine.Config{Checkpoints: store})
	n := 0
	for _, info := range infos {
		if info.Kind != engine.CheckpointInterrupt {
			continue
		}
		qs, err := e.Pending(ctx, info.RunID)
		if err != nil {
			fmt.Fprintf(stderr, "loom resume: run %s: %v\n", info.RunID, err)
			continue
		}
		if len(qs) == 0 {
			continue
		}
		n++
		where := "agent " + info.Meta["agent"]
		if f := info.Meta[fileLabel]; f != "" {
			where += " of " + f
		}
		if sid := info.Meta[engine.MetaSession]; sid != "" {
			where += ", a turn of session " + sid
		}
		fmt.Fprintf(stdout, "run %s (%s, since %s)\n", info.RunID, where, info.Updated.Local().Format("2006-01-02 15:04:05"))
		for _, q := range qs {
			fmt.Fprintf(stdout, "  waits for %s %s:\n%s\n", q.Kind, q.ID, indent(describeQuestion(q)))
		}
		how := answerFlags(qs)
		fmt.Fprintf(stdout, "  continue it with: loom resume %s %s\n", info.RunID, how)
	}
	if n == 0 {
		fmt.Fprintln(stderr, "loom resume: no run waits for an answer in this checkpoint database")
	}
	return exitOK
}

// sessionOf returns the session run runID is a turn of, or "".
func sessionOf(ctx context.Context, l *loaded, runID string) string {
	head, err := l.engine.Checkpoints().Head(ctx, runID)
	if err != nil {
		return ""
	}
	return head.Meta[engine.MetaSession]
}

// finish finishes the session's turn whose process stopped mid-way and
// prints its answer.
func (r *runner) finish(ctx context.Context, sess *engine.Session) int {
	res, err := sess.Continue(ctx)
	if err != nil {
		fmt.Fprintf(r.errOut, "%s: %s\n", r.name, termtext.Safe(err.Error()))
		return exitFailed
	}
	if r.state {
		fmt.Fprintln(r.out, termtext.Safe(string(res.Output)))
	} else {
		fmt.Fprintln(r.out, termtext.Safe(flow.TextOf(res.Output)))
	}
	return exitOK
}

// noQuestion reports an answer given to a run that asks nothing: it ended,
// or it is still going (or stopped mid-way). Answering it would start a
// second copy of the run's current step.
func noQuestion(ctx context.Context, l *loaded, runID string, stderr io.Writer) int {
	head, err := l.engine.Checkpoints().Head(ctx, runID)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "loom resume: %v\n", err)
	case head.Kind == engine.CheckpointEnd:
		fmt.Fprintf(stderr, "loom resume: run %s already ended (checkpoint %d): nothing to resume\n", runID, head.Seq)
	default:
		fmt.Fprintf(stderr, "loom resume: run %s waits for no answer: it is running in another process (loom serve, loom run), or that process stopped before the run asked or ended. If it stopped, finish the run with: loom resume %s --continue\n", runID, runID)
	}
	return exitFailed
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
