// Command serve runs the fake OpenAI endpoint with the code-execution
// script (fakeopenai.Coder) on a local address, for timing the examples'
// binaries with hyperfine (see bench/README.md):
//
//	go run ./examples/internal/fakeopenai/serve -addr 127.0.0.1:8787
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/loomwork/loom/examples/internal/fakeopenai"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8787", "address to listen on")
	flag.Parse()
	srv := &http.Server{Addr: *addr, Handler: fakeopenai.Handler(fakeopenai.Coder), ReadHeaderTimeout: 5 * time.Second}
	fmt.Fprintf(os.Stderr, "serving the fake OpenAI API at http://%s/v1\n", *addr)
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
