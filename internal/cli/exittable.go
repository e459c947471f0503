package cli

// Exit statuses of loom and the example programs: one table, the same
// number meaning the same thing in every command.
const (
	ExitOK             = 0   // an answer; a valid file; a clean stop
	ExitFailed         = 1   // a run failed: a model, provider or workflow error
	ExitUsage          = 2   // a bad command line, an invalid file, a missing or rejected key, an option the provider lacks
	ExitWaiting        = 3   // the run stopped to wait for an answer: continue it with loom resume ID
	ExitSnippetFailed  = 4   // no computed answer: the last snippet failed in the sandbox
	ExitDeclined       = 5   // no computed answer: the last snippet was declined at the approval prompt
	ExitRejected       = 6   // no computed answer: the reviewer rejected the last snippet
	ExitReviewerFailed = 7   // no computed answer: the reviewer itself failed
	ExitRetriesSpent   = 8   // the retry budget for failed, rejected or declined snippets ran out
	ExitTruncated      = 9   // the answer was cut at the model's output token limit (--allow-truncated accepts it)
	ExitInterrupted    = 130 // SIGINT (Ctrl-C): the run or server was stopped
	ExitTerminated     = 143 // SIGTERM: the run or server was stopped
)

// ExitTable is the exit status table every --help prints, and the README
// repeats.
const ExitTable = `Exit status (the same in every loom command and example program):
  0    an answer; a valid file; a server stopped cleanly by its client
  1    a run failed (model, provider or workflow error)
  2    a bad command line, an invalid file, a missing or rejected key
  3    the run stopped to wait for an answer: loom resume ID continues it
  4    no computed answer: the last snippet failed
  5    no computed answer: the last snippet was declined
  6    no computed answer: the reviewer rejected the last snippet
  7    no computed answer: the reviewer failed
  8    the retry budget ran out
  9    the answer was cut at the output token limit (--allow-truncated accepts it)
  130  interrupted by Ctrl-C (SIGINT); 143 by SIGTERM: runs are cancelled,
       servers stopped, sandbox workers ended and traces flushed
`
