//go:build unix

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loomwork/loom/agent"
)

// echoInput is the argument of every echo call of the benchmarks, the
// same as bench/mcp_echo.mjs sends.
const echoInput = `{"message":"hello"}`

// BenchmarkEverythingEcho is server-everything's echo tool called over
// stdio, one call at a time and with 8 in flight, through the go-sdk
// client alone and through loom (mcp.Connect, the tool's agent run). It
// reports calls/s; bench/mcp_echo.mjs measures the TypeScript client the
// same way.
func BenchmarkEverythingEcho(b *testing.B) {
	script := everythingScript(b)
	ctx := context.Background()
	for _, inflight := range []int{1, 8} {
		for _, progress := range []bool{false, true} {
			name := "raw"
			if progress {
				name = "raw+progress" // with the progress token loom sends
			}
			b.Run(fmt.Sprintf("%s/inflight=%d", name, inflight), func(b *testing.B) {
				client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
				cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: exec.Command("node", script, "stdio")}, &sdk.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
				if err != nil {
					b.Fatal(err)
				}
				defer cs.Close()
				var seq atomic.Int64
				callInFlight(b, inflight, func() error {
					params := &sdk.CallToolParams{Name: "echo", Arguments: json.RawMessage(echoInput)}
					if progress {
						params.Meta = sdk.Meta{"progressToken": strconv.FormatInt(seq.Add(1), 10)}
					}
					res, err := cs.CallTool(ctx, params)
					if err == nil && res.IsError {
						err = fmt.Errorf("echo failed: %v", res.Content)
					}
					return err
				})
			})
		}
		b.Run(fmt.Sprintf("loom/inflight=%d", inflight), func(b *testing.B) {
			ts, err := Connect(ctx, Config{Command: []string{"node", script, "stdio"}, Filter: func(n string) bool { return n == "echo" }})
			if err != nil {
				b.Fatal(err)
			}
			defer ts.Close()
			tools, err := ts.Tools(ctx)
			if err != nil || len(tools) != 1 {
				b.Fatalf("want the echo tool, got %d tools, %v", len(tools), err)
			}
			input := json.RawMessage(echoInput)
			callInFlight(b, inflight, func() error {
				_, err := agent.Invoke(ctx, tools[0], input)
				return err
			})
		})
	}
}

// callInFlight makes b.N calls with n in flight, and reports calls/s and
// the process's CPU time per call (the server runs in a child process, not
// counted), which the load of a shared machine disturbs less than time.
func callInFlight(b *testing.B, n int, call func() error) {
	for range 50 { // warm up: the server's JIT, the client's pools
		if err := call(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	b.ResetTimer()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				if err := call(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
	b.ReportMetric(float64(cpuTime(b)-cpu0)/1e3/float64(b.N), "cpu-µs/call")
}

// cpuTime is the process's user and system CPU time, in nanoseconds.
func cpuTime(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
