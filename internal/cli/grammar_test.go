package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/loomwork/loom/model"
	"github.com/stretchr/testify/require"
)

func TestNearest(t *testing.T) {
	cmds := []string{"run", "resume", "validate", "schema", "serve", "observe", "mcp", "eval", "help"}
	for in, want := range map[string]string{"rn": "run", "resme": "resume", "valdate": "validate", "serv": "serve", "obs": "observe", "evl": "eval", "xyzzy": "", "nonexistent": ""} {
		require.Equal(t, want, Nearest(in, cmds), in)
	}
}

func TestParseChatLine(t *testing.T) {
	for line, want := range map[string]ChatCommand{
		"": ChatEmpty, "  ": ChatEmpty, "/help": ChatHelpCmd, "/exit": ChatExit, "/quit": ChatExit,
		"/reset": ChatClear, "/clear": ChatClear, "/nope": ChatUnknown, "what is 2+2?": ChatAsk,
	} {
		require.Equal(t, want, ParseChatLine(line), line)
	}
}

func TestDotEnvOrder(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	wd, src := t.TempDir(), t.TempDir()
	t.Chdir(wd)
	cfg, err := os.UserConfigDir()
	require.NoError(t, err)
	files := DotEnvFiles(src)
	require.Equal(t, []string{filepath.Join(wd, DotEnvName), filepath.Join(src, DotEnvName), filepath.Join(cfg, "loom", DotEnvName)}, files)
	require.NoError(t, os.WriteFile(files[0], []byte("LOOM_TEST_A=wd\n"), 0o600))
	require.NoError(t, os.WriteFile(files[1], []byte("LOOM_TEST_A=src\nLOOM_TEST_B=src\n"), 0o600))
	t.Setenv("LOOM_TEST_A", "")
	t.Setenv("LOOM_TEST_B", "")
	require.NoError(t, os.Unsetenv("LOOM_TEST_A"))
	require.NoError(t, os.Unsetenv("LOOM_TEST_B"))
	require.NoError(t, LoadDotEnv(files))
	require.Equal(t, "wd", os.Getenv("LOOM_TEST_A"), "an earlier file wins")
	require.Equal(t, "src", os.Getenv("LOOM_TEST_B"))
}

func TestMissingKey(t *testing.T) {
	err := MissingKey(fmt.Errorf("open: %w", &model.MissingKeyError{Provider: "openai", Vars: []string{"OPENAI_API_KEY"}}), []string{"/w/.env.local", "/c/loom/.env.local"})
	require.ErrorIs(t, err, model.ErrMissingKey)
	msg := err.Error()
	require.Contains(t, msg, "set OPENAI_API_KEY in the environment or in a .env.local file")
	require.Contains(t, msg, "/w/.env.local\n  /c/loom/.env.local")
	require.NotContains(t, msg, "WithAPIKey")
}

// TestTurnSignals: the first SIGINT during a chat turn cancels the turn
// only; a second within the grace period cancels the program.
func TestTurnSignals(t *testing.T) {
	ctx, stop := NotifyContext(context.Background())
	defer stop()
	noticed := make(chan struct{}, 1)
	tctx, end := Turn(ctx, func() { noticed <- struct{}{} })
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGINT))
	<-tctx.Done()
	<-noticed
	require.NoError(t, ctx.Err(), "the first Ctrl-C cancels only the turn")
	require.NotNil(t, Interrupted(tctx))
	end()

	tctx, end = Turn(ctx, nil)
	defer end()
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGINT))
	<-ctx.Done()
	s := Interrupted(ctx)
	require.NotNil(t, s, "a second Ctrl-C within the grace period ends the program")
	require.Equal(t, ExitInterrupted, s.ExitCode())
	require.Error(t, tctx.Err())
}
