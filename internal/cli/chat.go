package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/chzyer/readline"
	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/engine"
	"github.com/loomwork/loom/internal/termtext"
)

// Chat memory: the last turns kept and the token budget they may take.
const (
	chatTurns  = 50
	chatTokens = 32000
)

// lineReader reads the chat's lines.
type lineReader interface {
	// ReadLine shows prompt (on a terminal) and returns the next line;
	// io.EOF at the end of input.
	ReadLine(prompt string) (string, error)
	Close() error
}

// newLineReader edits lines with history on a terminal, and reads plain
// lines otherwise.
func newLineReader(app *App, sio Stdio) (lineReader, error) {
	if !sio.InTerminal {
		sc := bufio.NewScanner(sio.In)
		sc.Buffer(make([]byte, 64<<10), maxStdin)
		return &scanReader{sc: sc}, nil
	}
	cfg := &readline.Config{
		Prompt:          "you> ",
		InterruptPrompt: "^C",
		EOFPrompt:       "/exit",
		Stdout:          sio.Out,
		Stderr:          sio.Err,
	}
	if dir, err := os.UserCacheDir(); err == nil {
		hist := filepath.Join(dir, "loom", app.Name+".history")
		if os.MkdirAll(filepath.Dir(hist), 0o700) == nil {
			cfg.HistoryFile = hist
		}
	}
	if f, ok := sio.In.(*os.File); ok {
		cfg.Stdin = f
	}
	rl, err := readline.NewEx(cfg)
	if err != nil {
		return nil, fmt.Errorf("opening the terminal for --chat: %w", err)
	}
	return &termReader{rl: rl}, nil
}

type scanReader struct{ sc *bufio.Scanner }

func (s *scanReader) ReadLine(string) (string, error) {
	if s.sc.Scan() {
		return s.sc.Text(), nil
	}
	if err := s.sc.Err(); err != nil {
		return "", err
	}
	return "", io.EOF
}

func (s *scanReader) Close() error { return nil }

type termReader struct{ rl *readline.Instance }

func (t *termReader) ReadLine(prompt string) (string, error) {
	t.rl.SetPrompt(prompt)
	line, err := t.rl.Readline()
	if errors.Is(err, readline.ErrInterrupt) {
		return "", ErrInterrupt
	}
	return line, err
}

func (t *termReader) Close() error { return t.rl.Close() }

// asker returns how to ask the person a question: through the chat's line
// editor, through stdin when it is a terminal, through piped stdin lines
// when the question itself came from a flag or an argument (so answers can
// be scripted), or through the controlling terminal; nil when there is
// none. ready reports whether an answer can be read at all: false when the
// scripted answers' stdin is empty or closed.
func asker(sio Stdio, lines lineReader, f *Flags) (ask func(context.Context, string) (string, error), ready func() bool) {
	var read func(q string) (string, error)
	ready = func() bool { return true }
	switch {
	case lines == nil && !sio.InTerminal && sio.In != nil && (f.Input != "" || len(f.Args) > 0):
		br := bufio.NewReader(sio.In)
		ready = func() bool { _, err := br.Peek(1); return err == nil }
		read = func(q string) (string, error) {
			line, err := promptLine(sio.Out, br, q)
			if err == nil {
				fmt.Fprintln(sio.Out, strings.TrimSpace(line)) // show the scripted answer
			}
			return line, err
		}
	case lines != nil && sio.InTerminal:
		read = lines.ReadLine
	case sio.InTerminal:
		br := bufio.NewReader(sio.In)
		read = func(q string) (string, error) { return promptLine(sio.Out, br, q) }
	case sio.OpenTTY != nil && canOpen(sio.OpenTTY):
		read = func(q string) (string, error) {
			tty, err := sio.OpenTTY()
			if err != nil {
				return "", fmt.Errorf("no terminal to ask on: %w", err)
			}
			defer tty.Close()
			return promptLine(tty, bufio.NewReader(tty), q)
		}
	default:
		return nil, func() bool { return false }
	}
	var mu sync.Mutex // one question at a time
	return func(_ context.Context, q string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		return read(q)
	}, ready
}

// promptLine writes q to w and reads one line from r; a last line without
// a newline counts.
func promptLine(w io.Writer, r *bufio.Reader, q string) (string, error) {
	fmt.Fprint(w, q)
	line, err := r.ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return line, nil
}

// chat runs the conversation loop and returns the exit status: 0, or the
// status of the last turn that failed or was cut (see exit.go).
func chat(ctx context.Context, env *Env, eng *engine.Engine, a agent.Agent, lines lineReader) int {
	sio := env.Stdio
	mem, err := engine.NewWindow(engine.WindowConfig{MaxTurns: chatTurns, MaxTokens: chatTokens})
	if err != nil {
		fmt.Fprintf(sio.Err, "%s: error: %v\n", env.App.Name, err)
		return ExitUsage
	}
	session := eng.NewSession(a, mem)
	if sio.InTerminal {
		if env.App.Welcome != "" {
			fmt.Fprintln(sio.Out, env.App.Welcome)
		}
		fmt.Fprintln(sio.Out, "Type /help for commands, /exit to leave.")
	}
	loop := ChatLoop{
		Name: env.App.Name, HistoryName: env.App.Name, Prompt: "you> ",
		Read: lines.ReadLine, Out: sio.Out, Err: sio.Err,
		Clear: func(ctx context.Context) { _ = mem.Clear(ctx) },
		Turn: func(tctx context.Context, line string) (int, bool) {
			code, err := runOnce(tctx, env, session.Run(tctx, line))
			switch {
			case tctx.Err() != nil:
				// Cancelled, or a signal: Main reports it.
			case err != nil:
				fmt.Fprintf(sio.Err, "%s: error: %s\n", env.App.Name, termtext.Safe(err.Error()))
			case StatusMessage(code) != "":
				fmt.Fprintf(sio.Err, "%s: %s\n", env.App.Name, StatusMessage(code))
			}
			return code, false
		},
	}
	return loop.Run(ctx)
}

// canOpen reports whether the controlling terminal can be opened.
func canOpen(open func() (*os.File, error)) bool {
	f, err := open()
	if err != nil {
		return false
	}
	f.Close()
	return true
}
