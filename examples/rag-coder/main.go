// Command rag-coder ingests a folder of text files into a vector store, then
// asks the coder a question about them: the coder looks things up with the
// search_knowledge tool and computes with evaluateJs, JavaScript in the
// sandbox.
//
//	OPENAI_API_KEY=... go run ./examples/rag-coder --docs examples/rag-coder/docs \
//	    "How many days of leave does a team of 6 get in a year?"
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path"

	"github.com/loomwork/loom/agent"
	"github.com/loomwork/loom/internal/cli"
	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/gemini"
	"github.com/loomwork/loom/model/openai"
	_ "github.com/loomwork/loom/model/providers" // registers every provider with model.Open
	"github.com/loomwork/loom/vector"
	"github.com/loomwork/loom/vector/sqlite"
)

const instructions = `You answer questions about the team's notes.
First call search_knowledge to find the relevant passages; answer only from them.
When the answer needs arithmetic, compute it with evaluateJs: the value of the
last expression of the code is the result. Answer in one or two sentences.`

// settings are rag-coder's own flags.
type settings struct {
	docs, db, embedder string
	sandbox            cli.SandboxFlags
}

func newApp() *cli.App {
	s := settings{docs: "docs", embedder: "hash"}
	return &cli.App{
		Name:            "rag-coder",
		Summary:         "ingests a folder of notes, then answers from them, computing in a sandbox",
		Welcome:         "Ask about the notes: the coder searches them and computes in the sandbox.",
		DefaultQuestion: "How many days of leave does a team of 6 get in a year?",
		Answer:          []string{"coder"},
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&s.docs, "docs", s.docs, "the `DIR` of .md and .txt files to ingest")
			fs.StringVar(&s.db, "db", "", "a SQLite `FILE` to keep the vectors in (default: memory only)")
			fs.StringVar(&s.embedder, "embedder", s.embedder, "the `EMBEDDER`: hash (offline, lexical), openai, ollama or gemini")
			s.sandbox.Register(fs, "")
		},
		Build: func(ctx context.Context, env *cli.Env) (agent.Agent, error) { return build(ctx, env, &s) },
	}
}

// build ingests the notes and returns the coder, with the search tool over
// them and the sandbox's evaluateJs.
func build(ctx context.Context, env *cli.Env, s *settings) (agent.Agent, error) {
	evaluateJs, err := s.sandbox.Tool(env)
	if err != nil {
		return nil, err
	}
	emb, err := newEmbedder(s.embedder)
	if err != nil {
		return nil, err
	}
	store, err := openStore(ctx, s.db, emb)
	if err != nil {
		return nil, err
	}
	env.Defer(func() { _ = store.Close() })
	ing, err := vector.NewIngester(store, vector.IngestConfig{
		ChunkSize: 600,
		Progress: func(p vector.Progress) {
			fmt.Fprintf(env.Stdio.Err, "ingest: %s (%d/%d chunks, file %d of %d)\n", p.Source, p.Chunks, p.TotalChunks, p.Files+1, p.TotalFiles)
		},
	})
	if err != nil {
		return nil, err
	}
	res, err := ing.IngestFS(ctx, os.DirFS(s.docs), func(p string) bool {
		ext := path.Ext(p)
		return ext == ".md" || ext == ".txt"
	})
	if err != nil {
		return nil, fmt.Errorf("--docs %s: %w", s.docs, err)
	}
	if res.Files == 0 {
		return nil, fmt.Errorf("--docs %s: no .md or .txt files in it: give the folder of your notes", s.docs)
	}
	search, err := vector.NewSearchTool(store, vector.SearchToolConfig{Description: "Searches the team's notes (leave, on-call, deploys) and returns the most relevant passages."})
	if err != nil {
		return nil, err
	}
	return agent.NewAI(agent.AIConfig{Name: "coder", Instructions: instructions, Options: env.Flags.Options, Tools: []agent.Agent{search, evaluateJs}})
}

// newEmbedder returns the embedder named by the --embedder flag.
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
	return nil, fmt.Errorf("--embedder %q: use hash, openai, ollama or gemini", name)
}

// openStore opens the SQLite store at path, or a memory store when path is
// empty.
func openStore(ctx context.Context, path string, emb model.Embedder) (vector.Store, error) {
	if path == "" {
		return vector.NewMemory(vector.MemoryConfig{Embedder: emb})
	}
	return sqlite.Open(ctx, sqlite.Config{Path: path, MemoryConfig: vector.MemoryConfig{Embedder: emb}})
}

func main() {
	cli.SandboxWorker()
	os.Exit(cli.Run(newApp()))
}
