package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/openai"
)

func ExampleNewEmbedder() {
	// A local server answering POST /v1/embeddings in OpenAI's format stands
	// in for api.openai.com; drop WithBaseURL and set OPENAI_API_KEY for the
	// real service.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","model":"text-embedding-3-small","usage":{"prompt_tokens":5,"total_tokens":5},
			"data":[{"object":"embedding","index":0,"embedding":[0.6,0.8,0]},{"object":"embedding","index":1,"embedding":[0,0,1]}]}`)
	}))
	defer srv.Close()

	e, err := openai.NewEmbedder("text-embedding-3-small", openai.EmbedConfig{Dimensions: 3},
		model.WithAPIKey("sk-example"), model.WithBaseURL(srv.URL+"/v1"))
	if err != nil {
		panic(err)
	}
	vs, err := e.Embed(context.Background(), []string{"hello", "world"})
	if err != nil {
		panic(err)
	}
	fmt.Println(e.Name(), e.Dimensions(), vs[0], vs[1], e.Usage().InputTokens)
	// Output: openai:text-embedding-3-small 3 [0.6 0.8 0] [0 0 1] 5
}
