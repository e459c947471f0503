package gemini_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/gemini"
)

func Example() {
	// A stand-in for the Gemini API, answering with a function call as
	// Gemini does: whole, without an id.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		startSSE(w).chunk(`{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}`, "STOP", model.Usage{InputTokens: 20, OutputTokens: 5})
	}))
	defer srv.Close()

	m, err := gemini.New("gemini-flash-latest", model.WithAPIKey("example-key"), model.WithBaseURL(srv.URL+"/"))
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := model.Generate(context.Background(), m, model.Request{
		Messages: []model.Message{model.UserMessage("Weather in Paris?")},
		Tools:    []model.Tool{{Name: "get_weather", Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range resp.Message.ToolCalls() {
		fmt.Println(c.ID, c.Name, string(c.Arguments))
	}
	fmt.Println(resp.FinishReason, resp.Usage)
	// Output:
	// gemini-call-resp-7Yx2-0 get_weather {"city":"Paris"}
	// tool_calls in=20 out=5 cached=0
}
