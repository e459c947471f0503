package pricing_test

import (
	"fmt"

	"github.com/loomwork/loom/model"
	"github.com/loomwork/loom/model/pricing"
)

func ExampleCost() {
	usage := model.Usage{InputTokens: 12_000, OutputTokens: 3_000}
	usd, known := pricing.Cost("openai", "gpt-4o-mini-2024-07-18", usage)
	fmt.Printf("$%.6f known=%v\n", usd, known)

	_, known = pricing.Cost("openai", "my-finetune", usage)
	fmt.Println("finetune known:", known)
	// Output:
	// $0.003600 known=true
	// finetune known: false
}

func ExampleTable_Set() {
	prices := pricing.Default()
	// Your negotiated price, or a model the built-in table does not know.
	prices.Set("openai", "ft:gpt-4o-mini:acme", pricing.Price{Input: 0.30, Output: 1.20})
	usd, known := prices.Cost("openai", "ft:gpt-4o-mini:acme", model.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000})
	fmt.Printf("$%.2f known=%v\n", usd, known)
	// Output:
	// $1.50 known=true
}
