package cli

import "strings"

// ChatHelp lists the commands every --chat understands.
const ChatHelp = `Commands:
  /help   show this help
  /clear  forget the conversation so far (also /reset)
  /exit   leave (also /quit, Ctrl-D)
Ctrl-C cancels the answer being written; Ctrl-C again within two seconds
leaves with status 130. Anything else is a question; earlier questions and
answers are remembered. On a terminal, the lines you type are kept for
the arrow keys in loom/NAME.history under the user cache folder.`

// ChatCommand is what a chat line asks for.
type ChatCommand int

// The chat's commands.
const (
	ChatAsk     ChatCommand = iota // a question for the agent
	ChatEmpty                      // an empty line: nothing to do
	ChatHelpCmd                    // /help
	ChatClear                      // /clear or /reset
	ChatExit                       // /exit or /quit
	ChatUnknown                    // another /word: say so, send nothing
)

// ParseChatLine reads one chat line: a command or a question.
func ParseChatLine(line string) ChatCommand {
	switch strings.TrimSpace(line) {
	case "":
		return ChatEmpty
	case "/help", "/?":
		return ChatHelpCmd
	case "/clear", "/reset":
		return ChatClear
	case "/exit", "/quit":
		return ChatExit
	}
	if strings.HasPrefix(strings.TrimSpace(line), "/") {
		return ChatUnknown
	}
	return ChatAsk
}
