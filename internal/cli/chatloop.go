package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// ErrInterrupt is a Ctrl-C typed at a chat's prompt: the terminal is in
// raw mode then, so it is a key, not a signal.
var ErrInterrupt = errors.New("interrupted at the prompt")

// ChatLoop is the loop of every --chat, in loom run and the examples: it
// reads lines, answers the chat's commands ([ParseChatLine]) and asks each
// question as one turn, which a Ctrl-C cancels alone; a second Ctrl-C
// within [TurnGrace], or one typed at the prompt twice, leaves with
// [ExitInterrupted].
type ChatLoop struct {
	// Name is the program's name, in messages.
	Name string
	// HistoryName names the line history file /help mentions
	// (loom/HistoryName.history under the user cache folder).
	HistoryName string
	// Prompt is shown before each line.
	Prompt string
	// Read returns the next line after showing prompt; io.EOF at the end
	// of the input, [ErrInterrupt] for a Ctrl-C typed at the prompt.
	Read func(prompt string) (string, error)
	// Out answers /help, /clear and an unknown command; Err gets the
	// Ctrl-C notices and errors.
	Out, Err io.Writer
	// Clear forgets the conversation (/clear).
	Clear func(ctx context.Context)
	// Turn asks line and returns the turn's exit status; stop ends the
	// chat with that status. A failed turn that does not stop makes it the
	// chat's status, unless a later turn fails otherwise.
	Turn func(ctx context.Context, line string) (code int, stop bool)
}

// Run runs the chat until /exit, the end of the input, a turn that stops
// it, two Ctrl-C or ctx's end, and returns its exit status.
func (c *ChatLoop) Run(ctx context.Context) int {
	status := ExitOK
	var lastInterrupt time.Time // the last Ctrl-C that cancelled a turn or was typed at the prompt
	for {
		if ctx.Err() != nil {
			return status // a signal: the caller reports it
		}
		line, err := c.Read(c.Prompt)
		if errors.Is(err, ErrInterrupt) {
			if time.Since(lastInterrupt) <= TurnGrace {
				fmt.Fprintf(c.Err, "%s: interrupted by Ctrl-C\n", c.Name)
				return ExitInterrupted
			}
			lastInterrupt = time.Now()
			fmt.Fprintln(c.Err, "(Ctrl-C again to leave, or type /exit)")
			continue
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintf(c.Err, "%s: error: reading input: %v\n", c.Name, err)
				return ExitFailed
			}
			return status
		}
		line = strings.TrimSpace(line)
		switch ParseChatLine(line) {
		case ChatEmpty:
			continue
		case ChatExit:
			return status
		case ChatHelpCmd:
			fmt.Fprintln(c.Out, strings.ReplaceAll(ChatHelp, "NAME", c.HistoryName))
			continue
		case ChatClear:
			c.Clear(ctx)
			fmt.Fprintln(c.Out, "(conversation cleared)")
			continue
		case ChatUnknown:
			fmt.Fprintf(c.Out, "unknown command %s; type /help\n", line)
			continue
		}
		tctx, end := Turn(ctx, func() {
			fmt.Fprintln(c.Err, "\n(answer cancelled: Ctrl-C again within two seconds leaves)")
		})
		code, stop := c.Turn(tctx, line)
		cancelled := tctx.Err() != nil && ctx.Err() == nil
		end()
		switch {
		case cancelled:
			lastInterrupt = time.Now()
			continue // the question was withdrawn: the conversation goes on
		case ctx.Err() != nil:
			return status // a signal: the caller reports it
		case stop:
			return code
		case code != ExitOK:
			status = code // the conversation's status is its last failed turn's
		}
	}
}
