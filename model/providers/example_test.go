package providers_test

import (
	"fmt"
	"os"

	"github.com/loomwork/loom/model"
	_ "github.com/loomwork/loom/model/providers"
)

func Example() {
	// Ollama needs no key; other providers read theirs from the environment.
	os.Unsetenv("OLLAMA_BASE_URL")
	m, err := model.Open("ollama:qwen3:8b")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Provider(), m.Name())

	os.Unsetenv("XAI_API_KEY")
	_, err = model.Open("xai")
	fmt.Println(err)
	// Output:
	// ollama qwen3:8b
	// xai: missing API key: set XAI_API_KEY in the environment (a program can pass the key with the provider's WithAPIKey option instead)
}
