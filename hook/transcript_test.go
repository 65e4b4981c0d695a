package hook

import (
	"encoding/json"
	"strings"
	"testing"
)

// transcriptUse and transcriptResult are transcript lines as Claude Code
// writes them: an assistant's tool_use, and the user's tool_result.
func transcriptUse(id, command string) string {
	b, _ := json.Marshal(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": "Running it."},
			map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"description": "Push the rebased release branch", "command": command}}}}})
	return string(b) + "\n"
}

func transcriptResult(id, text string, isError bool) string {
	b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": text, "is_error": isError}}}})
	return string(b) + "\n"
}

// The watch ends when the call's own tool_use gets its result, whether the
// host ran it or refused it; not for an earlier identical call that ended
// before the hook began, another call, a line cut short, or garbage.
func TestTranscriptWatch(t *testing.T) {
	p := load(t, "claude-code/permissionrequest-bash.json")
	command, _ := p.str("command")
	for _, refused := range []bool{false, true} {
		w, ok := p.WatchTranscript()
		if !ok || w.Path == "" {
			t.Fatal("no watch for a Claude Code PermissionRequest with a transcript")
		}
		earlier := transcriptUse("toolu_01", command) + transcriptResult("toolu_01", "done", false)
		if w.Feed([]byte(earlier + "not json\n" + transcriptUse("toolu_02", command))) {
			t.Fatal("an earlier call's result ended the watch")
		}
		if w.Feed([]byte(transcriptUse("toolu_03", "ls") + transcriptResult("toolu_03", "a b", false))) {
			t.Fatal("another call's result ended the watch")
		}
		result := transcriptResult("toolu_02", "Everything up-to-date", false)
		if refused {
			result = transcriptResult("toolu_02", "The user doesn't want to proceed with this tool use. The tool use was rejected.", true)
		}
		half := len(result) / 2
		if w.Feed([]byte(result[:half])) {
			t.Fatal("half a line ended the watch")
		}
		if !w.Feed([]byte(result[half:])) {
			t.Fatalf("the call's result (refused %v) did not end the watch", refused)
		}
	}
	// Two identical calls in one message: the watch ends when both have
	// their result, not at the first.
	w, _ := p.WatchTranscript()
	both := transcriptUse("toolu_a", command) + transcriptUse("toolu_b", command)
	if w.Feed([]byte(both)) || w.Feed([]byte(transcriptResult("toolu_b", "done", false))) {
		t.Fatal("the other identical call's result ended the watch")
	}
	if !w.Feed([]byte(transcriptResult("toolu_a", "done", false))) {
		t.Fatal("both results did not end the watch")
	}
	// A line cut at the first read, completed at the next, was there when
	// the watch began: an earlier call's result, not this one's.
	w, _ = p.WatchTranscript()
	earlierResult := transcriptResult("toolu_01", "done", false)
	if w.Feed([]byte(transcriptUse("toolu_01", command)+earlierResult[:10])) || w.Feed([]byte(earlierResult[10:])) {
		t.Fatal("an earlier call's result, cut by the first read, ended the watch")
	}
	// A watch that starts midway drops the cut line it starts in.
	w, _ = p.WatchTranscript()
	w.StartMidway()
	if w.Feed([]byte(`d":"x"}}`+"\n"+transcriptUse("toolu_02", command))) || !w.Feed([]byte(transcriptResult("toolu_02", "ok", false))) {
		t.Fatal("a watch started midway")
	}
	for _, file := range []string{"claude-code/pretooluse-bash.json", "codex/permissionrequest-bash.json"} {
		if _, ok := load(t, file).WatchTranscript(); ok {
			t.Errorf("%s is watched", file)
		}
	}
	if !strings.Contains(string(readTestdata(t, "claude-code/permissionrequest-bash.json")), "transcript_path") {
		t.Fatal("the payload names no transcript")
	}
}
