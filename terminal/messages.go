package terminal

// Every sentence the terminal prompt shows or reports lives here, so the
// wording stays consistent: lowercase errors without a trailing period;
// the prompt's own lines read as a person would say them.

const (
	// The prompt line: what to type, and what Enter does.
	promptConfirm           = "%s (y) or %s (n)? [y/N] "
	promptConfirmApprove    = "%s (y) or %s (n)? [Y/n] "
	promptConfirmFor        = "%s (y), %s (a) or %s (n)? [y/a/N] "
	promptConfirmForApprove = "%s (y), %s (a) or %s (n)? [Y/a/n] "
	promptChooseOne         = "Pick one of 1-%d and press Enter: "
	promptChooseOneDefault  = "Pick one of 1-%d and press Enter (Enter alone: %s): "
	promptChooseMany        = "Pick any of 1-%d, separated by spaces, and press Enter: "
	promptChooseManyDefault = "Pick any of 1-%d, separated by spaces, and press Enter (Enter alone: %s): "
	promptInput             = "Type your answer, Enter for %s, Ctrl-C for %s: "
	promptOther             = "Your own answer, Enter for %s, Ctrl-C for %s: "
	// promptCountdown leads the prompt line while it waits.
	promptCountdown = "(%s left) "
	// defaultMark follows an option picked in advance.
	defaultMark = " (default)"

	// Notes shown in place of the countdown after an entry that answers
	// nothing, until the next key.
	noteNotAnOption = "%q is not one of 1-%d. "
	noteBadText     = "%v; type it again. "
	noteOnlyOne     = "Pick only one. "
	noteNothing     = "Type a number, or Ctrl-C for %s. "
	noteHeld        = "Held keys are ignored; press Enter once. "
	noteVoid        = "This line was begun before the question appeared, so it answers nothing; press Enter and type again. "
	noteVoidEnded   = "That line was begun before the question appeared, so it answered nothing; type your answer again. "
	noteTooLong     = "Only %s fit; the rest was not taken. "
	noteTooLongOut  = "The line was over %s, so it answers nothing; type it again. "
	limitChars      = "%d characters"
	limitBytes      = "%d bytes"

	// How the prompt line ends when the prompt closes without an answer.
	endCancelled = "^C"
	endCtrlD     = "^D"
	endEsc       = " (Esc)"
	endTimedOut  = " (no answer before --timeout)"
	endClosed    = " (closed without an answer)"

	msgNoTTY        = "no controlling terminal: %v"
	msgNotOnStdio   = "none of stdin, stdout and stderr is the controlling terminal %s, so no person is typing at it here"
	msgBackground   = "this process is not in the foreground of %s: run it in the foreground to be asked there"
	msgNoConsole    = "no console: %v"
	msgTTYMode      = "setting the terminal's mode: %w"
	msgTTYRead      = "reading the terminal: %w"
	msgTTYWrite     = "writing to the terminal: %w"
	msgTTYHangup    = "the terminal hung up"
	msgTerminalLock = "waiting for the terminal's other prompt: %w"
)
