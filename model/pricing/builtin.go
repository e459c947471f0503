package pricing

// builtinPrices is the built-in price table, in US dollars per million
// tokens: {Input, Output, CachedInput}. These are list prices for standard
// requests as published by each provider in 2025 and 2026; long-context tiers
// (Gemini Pro above 200k prompt tokens, Claude Sonnet above 200k) and batch
// discounts are not modelled. It is never written to: [Default] copies it.
//
// Keys are lower case; see lookupIn for how dated names resolve.
var builtinPrices = map[string]map[string]Price{
	"openai": {
		"gpt-5.4-mini":      {Input: 0.75, Output: 4.50, CachedInput: 0.075}, // loom's default OpenAI model (2026 list price)
		"gpt-5.4":           {Input: 2.50, Output: 15.00, CachedInput: 0.25},
		"gpt-5.5":           {Input: 5.00, Output: 30.00, CachedInput: 0.50},
		"gpt-4o-mini":       {Input: 0.15, Output: 0.60, CachedInput: 0.075},
		"gpt-4o":            {Input: 2.50, Output: 10.00, CachedInput: 1.25},
		"chatgpt-4o-latest": {Input: 5.00, Output: 15.00},
		"gpt-4.1":           {Input: 2.00, Output: 8.00, CachedInput: 0.50},
		"gpt-4.1-mini":      {Input: 0.40, Output: 1.60, CachedInput: 0.10},
		"gpt-4.1-nano":      {Input: 0.10, Output: 0.40, CachedInput: 0.025},
		"gpt-5":             {Input: 1.25, Output: 10.00, CachedInput: 0.125},
		"gpt-5.1":           {Input: 1.25, Output: 10.00, CachedInput: 0.125},
		"gpt-5-mini":        {Input: 0.25, Output: 2.00, CachedInput: 0.025},
		"gpt-5-nano":        {Input: 0.05, Output: 0.40, CachedInput: 0.005},
		"o1":                {Input: 15.00, Output: 60.00, CachedInput: 7.50},
		"o3":                {Input: 2.00, Output: 8.00, CachedInput: 0.50},
		"o3-mini":           {Input: 1.10, Output: 4.40, CachedInput: 0.55},
		"o4-mini":           {Input: 1.10, Output: 4.40, CachedInput: 0.275},
		"gpt-4-turbo":       {Input: 10.00, Output: 30.00},
		"gpt-3.5-turbo":     {Input: 0.50, Output: 1.50},
	},
	"anthropic": {
		// loom's default is claude-sonnet-5-5; the Sonnet line has kept $3/$15
		// since Sonnet 3.5, and Anthropic had not published a 5.x price when
		// this table was written, so "claude-sonnet-5" carries the Sonnet price.
		"claude-sonnet-5":   {Input: 3.00, Output: 15.00, CachedInput: 0.30},
		"claude-sonnet-4-6": {Input: 3.00, Output: 15.00, CachedInput: 0.30},
		"claude-opus-4-7":   {Input: 5.00, Output: 25.00, CachedInput: 0.50},
		"claude-opus-4-6":   {Input: 5.00, Output: 25.00, CachedInput: 0.50},
		"claude-opus-4-5":   {Input: 5.00, Output: 25.00, CachedInput: 0.50},
		"claude-opus-4-1":   {Input: 15.00, Output: 75.00, CachedInput: 1.50},
		"claude-opus-4":     {Input: 15.00, Output: 75.00, CachedInput: 1.50},
		"claude-sonnet-4-5": {Input: 3.00, Output: 15.00, CachedInput: 0.30},
		"claude-sonnet-4":   {Input: 3.00, Output: 15.00, CachedInput: 0.30},
		"claude-3-7-sonnet": {Input: 3.00, Output: 15.00, CachedInput: 0.30},
		"claude-3-5-sonnet": {Input: 3.00, Output: 15.00, CachedInput: 0.30},
		"claude-haiku-4-5":  {Input: 1.00, Output: 5.00, CachedInput: 0.10},
		"claude-3-5-haiku":  {Input: 0.80, Output: 4.00, CachedInput: 0.08},
		"claude-3-haiku":    {Input: 0.25, Output: 1.25, CachedInput: 0.03},
	},
	"gemini": geminiPrices,
	"google": geminiPrices,
	"deepseek": {
		"deepseek-chat":     {Input: 0.28, Output: 0.42, CachedInput: 0.028},
		"deepseek-reasoner": {Input: 0.28, Output: 0.42, CachedInput: 0.028},
	},
	"xai": {
		"grok-4.3":         {Input: 1.25, Output: 2.50, CachedInput: 0.20}, // loom's default xAI model (May 2026)
		"grok-4":           {Input: 3.00, Output: 15.00, CachedInput: 0.75},
		"grok-4-fast":      {Input: 0.20, Output: 0.50, CachedInput: 0.05},
		"grok-4-1-fast":    {Input: 0.20, Output: 0.50, CachedInput: 0.05},
		"grok-code-fast-1": {Input: 0.20, Output: 1.50, CachedInput: 0.02},
		"grok-3":           {Input: 3.00, Output: 15.00, CachedInput: 0.75},
		"grok-3-mini":      {Input: 0.30, Output: 0.50, CachedInput: 0.075},
		"grok-2":           {Input: 2.00, Output: 10.00},
	},
	// Local runtimes: the tokens are free.
	"ollama":   {AnyModel: {}},
	"lmstudio": {AnyModel: {}},
}

// geminiPrices is shared by the "gemini" and "google" provider ids.
var geminiPrices = map[string]Price{
	"gemini-3-pro":          {Input: 2.00, Output: 12.00, CachedInput: 0.20},
	"gemini-2.5-pro":        {Input: 1.25, Output: 10.00, CachedInput: 0.125},
	"gemini-2.5-flash":      {Input: 0.30, Output: 2.50, CachedInput: 0.03},
	"gemini-2.5-flash-lite": {Input: 0.10, Output: 0.40, CachedInput: 0.01},
	"gemini-2.0-flash":      {Input: 0.10, Output: 0.40, CachedInput: 0.025},
	"gemini-2.0-flash-lite": {Input: 0.075, Output: 0.30},
	"gemini-1.5-pro":        {Input: 1.25, Output: 5.00},
	"gemini-1.5-flash":      {Input: 0.075, Output: 0.30},
	// Moving aliases, priced as what they pointed to in late 2025.
	"gemini-flash-latest":      {Input: 0.30, Output: 2.50, CachedInput: 0.03},
	"gemini-flash-lite-latest": {Input: 0.10, Output: 0.40, CachedInput: 0.01},
	"gemini-pro-latest":        {Input: 1.25, Output: 10.00, CachedInput: 0.125},
}
