// Command rag-coder ingests a folder of text files into a vector store, then
// asks the coder a question about them: the coder looks things up with the
// search_knowledge tool and computes with evaluateJs, JavaScript in the
// sandbox.
//
//	OPENAI_API_KEY=... go run ./examples/rag-coder -docs examples/rag-coder/docs \
//	    "How many days of leave does a team of 6 get in a year?"
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/gemini"
	"github.com/loomwork/loom/model/openai"
	_ "github.com/loomwork/loom/model/providers" // registers every provider with model.Open
	"github.com/loomwork/loom/sandbox"
	"github.com/loomwork/loom/sandbox/jstool"
	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/sqlite"
)

const instructions = `You answer questions about the team's notes.
First call search_knowledge to find the relevant passages; answer only from them.
When the answer needs arithmetic, compute it with evaluateJs: the value of the
last expression of the code is the result. Answer in one or two sentences.`

func main() {
	sandbox.ServeWorkerIfChild() // this program is also the isolated sandbox's worker
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "rag-coder:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rag-coder", flag.ContinueOnError)
	fs.SetOutput(stderr)
	docs := fs.String("docs", "docs", "the folder of .md and .txt files to ingest")
	db := fs.String("db", "", "a SQLite file to keep the vectors in (default: memory only)")
	embed := fs.String("embedder", "hash", "hash (offline, lexical), openai, ollama or gemini")
	modelID := fs.String("model", "openai", `the coder's model, as "openai", "anthropic" or "ollama:llama3.2"`)
	if err := fs.Parse(args); err != nil {
		return err
	}
	question := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if question == "" {
		return errors.New(`give a question, as: rag-coder -docs DIR "How many days of leave do I get?"`)
	}

	emb, err := newEmbedder(*embed)
	if err != nil {
		return err
	}
	store, err := openStore(ctx, *db, emb)
	if err != nil {
		return err
	}
	defer store.Close()

	ing, err := vector.NewIngester(store, vector.IngestConfig{
		ChunkSize: 600,
		Progress: func(p vector.Progress) {
			fmt.Fprintf(stderr, "ingest: %s (%d/%d chunks, file %d of %d)\n", p.Source, p.Chunks, p.TotalChunks, p.Files+1, p.TotalFiles)
		},
	})
	if err != nil {
		return err
	}
	res, err := ing.IngestFS(ctx, os.DirFS(*docs), func(p string) bool {
		ext := path.Ext(p)
		return ext == ".md" || ext == ".txt"
	})
	if err != nil {
		return err
	}
	if res.Files == 0 {
		return fmt.Errorf("no .md or .txt files in %s", *docs)
	}

	m, err := model.Open(*modelID)
	if err != nil {
		return err
	}
	exec, err := sandbox.NewIsolated(sandbox.IsolatedConfig{})
	if err != nil {
		return err
	}
	defer exec.Close()
	evaluateJs, err := jstool.New(exec, jstool.Config{})
	if err != nil {
		return err
	}
	search, err := vector.NewSearchTool(store, vector.SearchToolConfig{Description: "Searches the team's notes (leave, on-call, deploys) and returns the most relevant passages."})
	if err != nil {
		return err
	}
	coder, err := agent.NewAI(agent.AIConfig{Name: "coder", Model: m, Instructions: instructions, Tools: []agent.Agent{search, evaluateJs}})
	if err != nil {
		return err
	}
	out, err := agent.InvokeAs[struct {
		Message string `json:"message"`
	}](ctx, coder, question)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, out.Message)
	return nil
}

// newEmbedder returns the embedder named by the -embedder flag.
func newEmbedder(name string) (model.Embedder, error) {
	switch name {
	case "hash":
		return vector.NewHashEmbedder(0)
	case "openai":
		return openai.NewEmbedder("", openai.EmbedConfig{})
	case "ollama":
		return openai.NewEmbedderFor(openai.OllamaPreset(), "", openai.EmbedConfig{})
	case "gemini":
		return gemini.NewEmbedder("", gemini.EmbedConfig{Dimensions: 768})
	}
	return nil, fmt.Errorf("-embedder %q: use hash, openai, ollama or gemini", name)
}

// openStore opens the SQLite store at path, or a memory store when path is
// empty.
func openStore(ctx context.Context, path string, emb model.Embedder) (vector.Store, error) {
	if path == "" {
		return vector.NewMemory(vector.MemoryConfig{Embedder: emb})
	}
	return sqlite.Open(ctx, sqlite.Config{Path: path, MemoryConfig: vector.MemoryConfig{Embedder: emb}})
}
