package viewer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/loomwork/loom/observe/store"
)

// DefaultPort is where `loom observe` serves the viewer.
const DefaultPort = 7893

// Config configures [Serve].
type Config struct {
	// Host to listen on; default "127.0.0.1". The viewer shows prompts and
	// answers: keep it on loopback unless you mean to share them.
	Host string
	// Port to listen on: 0 means DefaultPort, a negative port picks a
	// free one (see Ready for the address).
	Port int `config:"negative"`
	// DBPath is the trace database; empty means store.DefaultPath.
	DBPath string
	// Store configures the store (the viewer only reads, but opening
	// creates the file and schema when missing); DBPath, when set, is its
	// Path.
	Store store.Config
	// Logger logs request errors; default slog.Default().
	Logger *slog.Logger
	// AllowedHosts are names the Host header may carry besides the
	// loopback names, as [HandlerConfig.AllowedHosts].
	AllowedHosts []string
	// Ready, if set, is called with the viewer's URL once it is listening.
	Ready func(url string)
	// Out, if set, receives a one-line "serving at" message.
	Out io.Writer
}

// Serve opens the trace database and serves the viewer until ctx is done,
// then shuts the server down gracefully. It returns nil after a clean
// shutdown.
func Serve(ctx context.Context, cfg Config) error {
	host, port := cfg.Host, cfg.Port
	if host == "" {
		host = "127.0.0.1"
	}
	switch {
	case port == 0:
		port = DefaultPort
	case port < 0:
		port = 0 // the system picks a free port
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	storeCfg := cfg.Store
	if cfg.DBPath != "" {
		storeCfg.Path = cfg.DBPath
	}
	s, err := store.Open(ctx, storeCfg)
	if err != nil {
		return err
	}
	defer s.Close()

	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("viewer: listen on %s:%d: %w (is another viewer running? pick another --port)", host, port, err)
	}
	srv := &http.Server{
		Handler:           NewHandler(s, HandlerConfig{Logger: log, AllowedHosts: cfg.AllowedHosts}),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	url := "http://" + ln.Addr().String() + "/"
	if cfg.Out != nil {
		fmt.Fprintf(cfg.Out, "loom observe: serving %s at %s (Ctrl-C to stop)\n", s.Path(), url)
	}
	if cfg.Ready != nil {
		cfg.Ready(url)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("viewer: serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	if err != nil {
		return fmt.Errorf("viewer: shut down: %w", err)
	}
	return nil
}
