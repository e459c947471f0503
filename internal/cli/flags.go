package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/loomwork/loom/model"
)

// Flags are the flags every example accepts.
type Flags struct {
	Input    string        // --input, -i
	Args     []string      // positional arguments
	Chat     bool          // --chat, --interactive
	Model    string        // --model provider[:model]
	Options  model.Options // --temperature, --top-p, --presence-penalty, --frequency-penalty
	LogLevel string        // --log-level
	Timeout  time.Duration // --timeout: bound on one run (one chat turn)
	NoTrace  bool          // --no-trace: do not record runs to the trace store
	// AllowTruncated accepts an answer cut at the output token limit
	// (--allow-truncated) instead of exiting with ExitTruncated.
	AllowTruncated bool
	Version        bool // --version
	Help           bool // --help, -h
}

// errHelp is returned by Parse for --help; the usage is already printed.
var errHelp = errors.New("help requested")

// UsageError is a bad command line.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// flagNames maps option names, as model.OptionError reports them, to flags.
var flagNames = map[string]string{
	"temperature":       "--temperature",
	"top_p":             "--top-p",
	"presence_penalty":  "--presence-penalty",
	"frequency_penalty": "--frequency-penalty",
}

// Parse reads args. extra adds an example's own flags. Flags and positional
// arguments may be mixed; "--" ends the flags.
func Parse(app *App, args []string, usageOut io.Writer) (*Flags, error) {
	f := &Flags{LogLevel: "INFO", Timeout: app.DefaultTimeout}
	fs := flag.NewFlagSet(app.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.Input, "input", "", "the question as `TEXT` (also a positional argument, or piped on stdin)")
	fs.StringVar(&f.Input, "i", "", "shorthand for --input `TEXT`")
	fs.BoolVar(&f.Chat, "chat", false, "multi-turn conversation with memory")
	fs.BoolVar(&f.Chat, "interactive", false, "alias of --chat")
	fs.StringVar(&f.Model, "model", "", "`PROVIDER[:MODEL]`, as openai:gpt-5.4-mini or ollama:llama3.2 (default $MODEL, then openai)")
	floatFlag(fs, "temperature", "sampling temperature, 0 to 2", &f.Options.Temperature)
	floatFlag(fs, "top-p", "nucleus sampling, 0 to 1", &f.Options.TopP)
	floatFlag(fs, "presence-penalty", "presence penalty, -2 to 2", &f.Options.PresencePenalty)
	floatFlag(fs, "frequency-penalty", "frequency penalty, -2 to 2", &f.Options.FrequencyPenalty)
	fs.StringVar(&f.LogLevel, "log-level", f.LogLevel, "`LEVEL`: ERROR, WARN, INFO, DEBUG or TRACE (logs go to stderr)")
	fs.DurationVar(&f.Timeout, "timeout", f.Timeout, "time limit of one run (one chat turn), as 90s or 5m")
	fs.BoolVar(&f.AllowTruncated, "allow-truncated", false, "exit 0 even when the answer was cut at the model's output token limit")
	fs.BoolVar(&f.NoTrace, "no-trace", false, "do not record runs to the local trace store (see them with: loom observe)")
	fs.BoolVar(&f.Version, "version", false, "print the version and exit")
	fs.BoolVar(&f.Help, "help", false, "show this help")
	fs.BoolVar(&f.Help, "h", false, "shorthand for --help")
	if app.Flags != nil {
		app.Flags(fs)
	}
	var err error
	if f.Args, err = ParseInterleaved(fs, args); err != nil {
		return nil, &UsageError{Msg: strings.TrimSpace(err.Error()) + " (see --help)"}
	}
	if f.Help {
		printUsage(app, fs, usageOut)
		return nil, errHelp
	}
	if err := f.Options.Validate(); err != nil {
		var oe *model.OptionError
		if errors.As(err, &oe) {
			return nil, &UsageError{Msg: fmt.Sprintf("%s %s is out of range: it must be in %s", flagNames[oe.Option], oe.Value, oe.Range)}
		}
		return nil, &UsageError{Msg: err.Error()}
	}
	if _, err := ParseLevel(f.LogLevel); err != nil {
		return nil, &UsageError{Msg: err.Error()}
	}
	if f.Timeout <= 0 {
		return nil, &UsageError{Msg: fmt.Sprintf("--timeout %v: it must be positive, as 2m", f.Timeout)}
	}
	if f.Chat && (f.Input != "" || len(f.Args) > 0) {
		return nil, &UsageError{Msg: "--chat reads its questions from the prompt: drop --input and the arguments, or drop --chat for one question"}
	}
	return f, nil
}

// ParseInterleaved parses args with fs, flags and positional arguments in
// any order, as every loom command and example reads its command line, and
// returns the positional arguments; "--" ends the flags.
func ParseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// floatFlag defines a float flag that stays nil unless given.
func floatFlag(fs *flag.FlagSet, name, usage string, dst **float64) {
	fs.Func(name, usage, func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", s)
		}
		*dst = &v
		return nil
	})
}

func printUsage(app *App, fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, "%s: %s\n\nUsage:\n  %s [flags] [question]\n  echo question | %s [flags]\n  %s --chat [flags]\n\nFlags:\n", app.Name, app.Summary, app.Name, app.Name, app.Name)
	type row struct{ left, usage string }
	var rows []row
	width := 0
	fs.VisitAll(func(fl *flag.Flag) {
		dash := "--"
		if len(fl.Name) == 1 {
			dash = "-"
		}
		left := dash + fl.Name
		if ph := placeholder(fl); ph != "" {
			left += " " + ph
		}
		_, usage := flag.UnquoteUsage(fl)
		if fl.DefValue != "" && fl.DefValue != "false" && fl.DefValue != "0s" && fl.DefValue != "0" {
			usage += " (default " + fl.DefValue + ")"
		}
		rows = append(rows, row{left, usage})
		width = max(width, len(left))
	})
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %s\n", width, r.left, r.usage)
	}
	fmt.Fprintf(w, "\n%s\n(examples/workflow-code-execution/.env.local.example lists every provider's variables.)\n\n%s", DotEnvOrder, ExitTable)
}

// placeholder returns the value a flag takes, as "DURATION", from a
// `NAME` in its usage or its type; "" for a boolean flag.
func placeholder(fl *flag.Flag) string {
	if b, ok := fl.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return ""
	}
	name, _ := flag.UnquoteUsage(fl)
	switch name {
	case "":
		return ""
	case "value", "float", "int":
		return "N"
	}
	return strings.ToUpper(name)
}
