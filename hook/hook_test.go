package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ask-confirm/ask-confirm/dialog"
	"github.com/ask-confirm/ask-confirm/internal/padding"
	"github.com/ask-confirm/ask-confirm/lifecycle"
)

// home is the home directory the payloads in testdata were made under.
const home = "/home/dana"

// load parses testdata/HOST/NAME.json as that host's hook input.
func load(t *testing.T, file string) Payload {
	t.Helper()
	p, err := Parse(hostOf(t, file), readTestdata(t, file))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return p
}

func readTestdata(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func hostOf(t *testing.T, file string) Host {
	t.Helper()
	h, ok := LookupHost(filepath.Dir(file))
	if !ok {
		t.Fatalf("no host for %s", file)
	}
	return h
}

// parseAs parses a payload given as a Go value, marshalled as a host
// would send it.
func parseAs(t *testing.T, hostName string, payload map[string]any) (Payload, error) {
	t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := LookupHost(hostName)
	return Parse(h, b)
}

// bash is a Claude Code PermissionRequest for a Bash command.
func bash(cwd, command string) map[string]any {
	return map[string]any{
		"session_id":      "4b3c1c0e-2f55-4d0a-9d7e-6a1f3c2b9e11",
		"transcript_path": "/home/dana/.claude/projects/x.jsonl",
		"cwd":             cwd,
		"permission_mode": "default",
		"hook_event_name": EventPermissionRequest,
		"tool_name":       "Bash",
		"tool_input":      map[string]any{"command": command},
	}
}

var keyPattern = regexp.MustCompile(`^(claude-code|codex|gemini|cursor) (\S+) ([0-9a-f]{32})$`)

// A Cursor MCP tool is never taken for the shell or a file tool, and its
// server is never taken from its arguments.
func TestCursorMCPToolIsNoOtherTool(t *testing.T) {
	shell, err := parseAs(t, "cursor", map[string]any{"hook_event_name": EventBeforeShell, "workspace_roots": []string{"/w"}, "command": "ls"})
	if err != nil {
		t.Fatal(err)
	}
	mcp, err := parseAs(t, "cursor", map[string]any{"hook_event_name": EventBeforeMCP, "workspace_roots": []string{"/w"},
		"tool_name": "Shell", "tool_input": `{"command":"ls","server_url":"https://forged.example"}`, "url": "https://mcp.example.org"})
	if err != nil {
		t.Fatal(err)
	}
	if mcp.Request(home).Key == shell.Request(home).Key || strings.HasPrefix(mcp.Request(home).Message, "Run this command?") {
		t.Fatalf("an MCP tool named Shell passes for the shell: %q", mcp.Request(home).Message)
	}
	if !strings.Contains(mcp.Request(home).Message, `"server_url":"https://mcp.example.org"`) {
		t.Fatalf("the server is not the one Cursor named: %q", mcp.Request(home).Message)
	}
	if _, err := parseAs(t, "cursor", map[string]any{"hook_event_name": EventBeforeMCP, "workspace_roots": []string{"/w"},
		"tool_name": "x", "tool_input": `{"a":1} {"b":2}`}); !errors.Is(err, ErrMalformed) {
		t.Fatalf("two objects as tool_input: %v", err)
	}
}

func TestRequestOfEachPayload(t *testing.T) {
	cases := []struct {
		file    string
		title   string
		want    []string // in the message, in this order
		keyTool string
		scope   string
	}{
		{"claude-code/pretooluse-bash.json", "Claude Code: Bash in shop",
			[]string{"Run this command?\n\n", "Claude Code says: Build the bundle and remove the legacy output\n\n", "npm run build && rm -rf dist/legacy\n\n", "Asked by Claude Code in ~/src/shop"},
			"Bash", "/home/dana/src/shop"},
		{"claude-code/permissionrequest-bash.json", "Claude Code: Bash in shop",
			[]string{"Run this command?\n\n", "Claude Code says: Push the rebased release branch", "\n\ngit push --force-with-lease origin release/2.4\n\n", "Asked by Claude Code in ~/src/shop"},
			"Bash", "/home/dana/src/shop"},
		{"claude-code/pretooluse-write.json", "Claude Code: Write in shop",
			[]string{"Write this file?\n\n", "(232 bytes of content)", "\n\n/home/dana/src/shop/.github/workflows/release.yml\n\n", "Asked by Claude Code in ~/src/shop"},
			"Write", "/home/dana/src/shop"},
		{"claude-code/pretooluse-edit.json", "Claude Code: Edit in shop",
			[]string{"Edit this file?\n\n/home/dana/src/shop/src/payments/stripe.ts\n\n", "Asked by Claude Code in ~/src/shop"},
			"Edit", "/home/dana/src/shop"},
		{"claude-code/pretooluse-webfetch.json", "Claude Code: WebFetch in shop",
			[]string{"Fetch this URL?\n\nhttps://docs.stripe.com/api/payment_intents/create\n\n", "Asked by Claude Code in ~/src/shop"},
			"WebFetch", "/home/dana/src/shop"},
		{"claude-code/pretooluse-mcp.json", "Claude Code: mcp__github__create_issue in shop",
			[]string{`Use the tool "create_issue" of the MCP server "github"?` + "\n\n",
				`{"body":"Steps to reproduce:\n1. Add 101 items\n2. Press <Pay>\n","labels":["bug","checkout"],"owner":"dana-shop","repo":"storefront","title":"Checkout fails for carts over 100 items"}` + "\n\n",
				"Asked by Claude Code in ~/src/shop"},
			"mcp__github__create_issue", "/home/dana/src/shop"},
		{"codex/permissionrequest-bash.json", "Codex: Bash in engine",
			[]string{"Run this command?\n\n", "Codex says: Publish engine-core 0.9.0 to crates.io\n\n", "cargo publish -p engine-core\n\n", "Asked by Codex in ~/src/engine"},
			"Bash", "/home/dana/src/engine"},
		{"codex/permissionrequest-apply_patch.json", "Codex: apply_patch in engine",
			[]string{"Apply this patch?\n\n", "(a patch of 212 bytes)", "\n\nUpdate File: src/lib.rs\nAdd File: CHANGELOG.md\nDelete File: src/legacy.rs\n\n", "Asked by Codex in ~/src/engine"},
			"apply_patch", "/home/dana/src/engine"},
		{"codex/permissionrequest-mcp.json", "Codex: mcp__postgres__execute_sql in engine",
			[]string{`Use the tool "execute_sql" of the MCP server "postgres"?` + "\n\n",
				`{"database":"engine_prod","sql":"DELETE FROM sessions WHERE last_seen < now() - interval '90 days'"}` + "\n\n",
				"Asked by Codex in ~/src/engine"},
			"mcp__postgres__execute_sql", "/home/dana/src/engine"},
		{"gemini/beforetool-run_shell_command.json", "Gemini CLI: run_shell_command in site",
			[]string{"Run this command?\n\n", "Gemini CLI says: Deploy the built site to production hosting", "\n\nfirebase deploy --only hosting\n\n", "Asked by Gemini CLI in ~/src/site"},
			"run_shell_command", "/home/dana/src/site"},
		{"gemini/beforetool-write_file.json", "Gemini CLI: write_file in site",
			[]string{"Write this file?\n\n", "(38 bytes of content)", "\n\n/home/dana/src/site/firebase.json\n\n", "Asked by Gemini CLI in ~/src/site"},
			"write_file", "/home/dana/src/site"},
		{"cursor/beforeshellexecution.json", "Cursor: Shell in app",
			[]string{"Run this command?\n\ndocker compose down --volumes", "Asked by Cursor in ~/src/app"},
			"Shell", "/home/dana/src/app"},
		{"cursor/beforemcpexecution.json", "Cursor: mcp:execute_sql in app",
			[]string{`Use the tool "mcp:execute_sql"?` + "\n\n",
				`{"arguments":{"database":"app_prod","sql":"DROP TABLE audit_log"},"server_url":"https://mcp.example.org/postgres"}`,
				"Asked by Cursor in ~/src/app"},
			"mcp:execute_sql", "/home/dana/src/app"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			p := load(t, c.file)
			call := p.Call(home, DefaultSettings())
			if err := call.Validate(); err != nil {
				t.Fatalf("the call does not validate: %v", err)
			}
			r := call.Request
			if r.Title != c.title {
				t.Errorf("title %q, want %q", r.Title, c.title)
			}
			// Shown on a surface as wide as any line here: the
			// words are in order, not broken into rows.
			shown, _ := r.Shown(dialog.Surface{Columns: 400}, time.Time{}, time.Time{})
			rest := shown
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("the dialog lacks %q (in order):\n%s", w, shown)
				}
				rest = rest[i+len(w):]
			}
			if !strings.HasSuffix(shown, c.want[len(c.want)-1]) {
				t.Errorf("the dialog does not end with where and by whom it is asked:\n%s", shown)
			}
			m := keyPattern.FindStringSubmatch(r.Key)
			if m == nil || m[1] != p.Host.Name || m[2] != c.keyTool {
				t.Errorf("key %q, want %q, the tool %q and 32 hex digits", r.Key, p.Host.Name, c.keyTool)
			}
			if r.Scope != c.scope {
				t.Errorf("scope %q, want %q", r.Scope, c.scope)
			}
			if r.OKLabel != "Allow" || r.CancelLabel != "Deny" || r.DefaultApprove {
				t.Errorf("buttons %q/%q default approve %v; want Allow and Deny, Enter denying", r.OKLabel, r.CancelLabel, r.DefaultApprove)
			}
		})
	}
}

func TestCallSettings(t *testing.T) {
	p := load(t, "claude-code/permissionrequest-bash.json")
	c := p.Call(home, Settings{Wait: 2 * time.Minute, Remember: 30 * time.Second, CollectWithin: 20 * time.Minute})
	if !c.Withdraw || c.IfHeadless != lifecycle.IfHeadlessFail {
		t.Errorf("withdraw %v, if-headless %q: want a withdrawn question and no answer without a person", c.Withdraw, c.IfHeadless)
	}
	if c.Wait != 2*time.Minute || c.Timeout != 2*time.Minute+10*time.Second || c.Remember != 30*time.Second || c.CollectWithin != 20*time.Minute {
		t.Errorf("durations wait %s timeout %s remember %s collect %s", c.Wait, c.Timeout, c.Remember, c.CollectWithin)
	}
	if d := DefaultSettings(); d.Wait != 5*time.Minute || d.Remember != time.Minute || d.CollectWithin != 15*time.Minute {
		t.Errorf("defaults %+v, want 5m, 1m, 15m", d)
	}
	if c := p.Call(home, Settings{Wait: lifecycle.MaxWait}); c.Timeout != lifecycle.MaxTimeout || c.Validate() != nil {
		t.Errorf("the longest wait: timeout %s, validation %v", c.Timeout, c.Validate())
	}
	for _, c := range []struct {
		s    Settings
		flag string
	}{
		{Settings{Wait: -time.Second, Remember: time.Minute}, "--wait"},
		{Settings{Wait: 25 * time.Hour, Remember: time.Minute}, "--wait"},
		{Settings{Wait: time.Minute, Remember: -time.Second}, "--remember"},
		{Settings{Wait: time.Minute, Remember: time.Minute, CollectWithin: 200 * time.Hour}, "--collect-within"},
	} {
		var ie *dialog.InvalidError
		if err := c.s.Validate(); !errors.As(err, &ie) || ie.Field != c.flag {
			t.Errorf("settings %+v: error %v, want one naming %s", c.s, err, c.flag)
		}
	}
	if err := DefaultSettings().Validate(); err != nil {
		t.Errorf("the default settings: %v", err)
	}
}

func TestLookupHost(t *testing.T) {
	for name, want := range map[string]string{"claude-code": "Claude Code", "claude": "Claude Code", "codex": "Codex",
		"gemini": "Gemini CLI", "gemini-cli": "Gemini CLI", "cursor": "Cursor"} {
		if h, ok := LookupHost(name); !ok || h.Agent != want {
			t.Errorf("LookupHost(%q) = %+v, %v", name, h, ok)
		}
	}
	for _, name := range []string{"", "Claude", "Gemini", "claude_code", "cursor-agent"} {
		if _, ok := LookupHost(name); ok {
			t.Errorf("LookupHost(%q) found a host", name)
		}
	}
}

func TestIdentity(t *testing.T) {
	base := readTestdata(t, "claude-code/permissionrequest-bash.json")
	h := hostOf(t, "claude-code/permissionrequest-bash.json")
	request := func(raw []byte) dialog.Request {
		t.Helper()
		p, err := Parse(h, raw)
		if err != nil {
			t.Fatal(err)
		}
		return p.Request(home)
	}
	edit := func(change func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(base, &m); err != nil {
			t.Fatal(err)
		}
		change(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	want := request(base)

	t.Run("the same call in another key order, session and event", func(t *testing.T) {
		reordered := []byte(`{"tool_input":{"description":"Push the rebased release branch","command":"git push --force-with-lease origin release/2.4"},
			"hook_event_name":"PreToolUse","tool_use_id":"toolu_other","tool_name":"Bash","cwd":"/home/dana/src/shop","session_id":"another-session"}`)
		got := request(reordered)
		if got.Key != want.Key || got.Identity() != want.Identity() || got.ContentHash() != want.ContentHash() {
			t.Fatalf("the same call is another request:\n%q\n%q", got.Key, want.Key)
		}
	})

	for name, change := range map[string]func(m map[string]any){
		"another directory": func(m map[string]any) { m["cwd"] = "/home/dana/src/shop-staging" },
		"another tool":      func(m map[string]any) { m["tool_name"] = "PowerShell" },
		"another command": func(m map[string]any) {
			m["tool_input"].(map[string]any)["command"] = "git push --force origin release/2.4"
		},
		"another description": func(m map[string]any) {
			m["tool_input"].(map[string]any)["description"] = "Push it"
		},
		"an extra input field": func(m map[string]any) { m["tool_input"].(map[string]any)["timeout"] = 1000 },
	} {
		t.Run(name, func(t *testing.T) {
			got := request(edit(change))
			if got.Key == want.Key || got.Identity() == want.Identity() {
				t.Fatalf("a different call shares the key %q", got.Key)
			}
		})
	}

	t.Run("another host", func(t *testing.T) {
		codex, _ := LookupHost("codex")
		p, err := Parse(codex, base)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Request(home); got.Key == want.Key || got.Identity() == want.Identity() {
			t.Fatalf("Codex's call shares Claude Code's key %q", got.Key)
		}
	})

	t.Run("numbers are kept as written", func(t *testing.T) {
		a := request([]byte(`{"hook_event_name":"PermissionRequest","cwd":"/w","tool_name":"X","tool_input":{"n":1.0}}`))
		b := request([]byte(`{"hook_event_name":"PermissionRequest","cwd":"/w","tool_name":"X","tool_input":{"n":1}}`))
		c := request([]byte(`{"hook_event_name":"PermissionRequest","cwd":"/w","tool_name":"X","tool_input":{"n":12345678901234567890123}}`))
		if a.Key == b.Key || !strings.Contains(c.Message, "12345678901234567890123") {
			t.Fatalf("numbers rewritten: %q %q\n%s", a.Key, b.Key, c.Message)
		}
	})
}

func TestKeyOfALongToolName(t *testing.T) {
	long := "mcp__" + strings.Repeat("s", 300) + "__" + strings.Repeat("t", 300)
	p, err := parseAs(t, "codex", map[string]any{"hook_event_name": EventPermissionRequest, "cwd": "/w", "tool_name": long, "tool_input": map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	r := p.Request(home)
	if len(r.Key) > dialog.MaxKeyBytes || !strings.HasPrefix(r.Key, "codex mcp__sss") || !strings.Contains(r.Key, "… ") {
		t.Fatalf("key of %d bytes: %q", len(r.Key), r.Key)
	}
	if !keyPattern.MatchString(r.Key) {
		t.Fatalf("key %q does not end in the call's hash", r.Key)
	}
	if len(r.Title) > dialog.MaxTitleBytes || !strings.Contains(r.Title, "…") {
		t.Fatalf("title of %d bytes: %q", len(r.Title), r.Title)
	}
	other := strings.Replace(long, "t", "u", 1)
	q, _ := parseAs(t, "codex", map[string]any{"hook_event_name": EventPermissionRequest, "cwd": "/w", "tool_name": other, "tool_input": map[string]any{}})
	if q.Request(home).Key == r.Key {
		t.Fatal("two tools that differ after the cut share a key")
	}
}

// What a person is shown of a long command keeps its head and its tail
// in view, says how much is left out, and starts by saying it is too
// long to show whole: the message holds the command whole up to
// maxShownBytes, and each place fits it (dialog.Fit); past that, the hook
// cuts it first, and the count covers both cuts.
func TestShorteningIsVisible(t *testing.T) {
	shown := func(t *testing.T, command string) (string, dialog.Request) {
		t.Helper()
		p, err := parseAs(t, "claude-code", bash("/w", command))
		if err != nil {
			t.Fatal(err)
		}
		r := p.Request(home)
		text, whole := r.Shown(dialog.Screen, time.Time{}, time.Time{})
		if whole {
			t.Fatalf("a long command is shown whole:\n%s", text)
		}
		if !strings.HasPrefix(text, "Too long to show whole: deny unless you know all of it.\n\n"+msgRunCommand+"\n\n") {
			t.Fatalf("the dialog does not say first that the command is too long to show whole:\n%s", text)
		}
		return text, r
	}
	t.Run("bytes", func(t *testing.T) {
		text, r := shown(t, strings.Repeat("x", 5000))
		if !strings.HasSuffix(r.Message, strings.Repeat("x", 5000)) {
			t.Fatalf("a 5000-byte command is not whole in the request: %.300s…", r.Message)
		}
		if !strings.Contains(text, " characters not shown …\n"+strings.Repeat("x", 60)) || !strings.HasSuffix(text, strings.Repeat("x", 20)+"\n\nAsked by Claude Code in /w") {
			t.Fatalf("a 5000-byte command is not cut visibly:\n%s", text)
		}
	})
	t.Run("lines", func(t *testing.T) {
		var lines []string
		for i := 1; i <= 100; i++ {
			lines = append(lines, fmt.Sprintf("echo %03d", i))
		}
		text, _ := shown(t, strings.Join(lines, "\n"))
		if !strings.Contains(text, "\necho 001\n") || !strings.Contains(text, "\necho 100\n\nAsked by") || !strings.Contains(text, " characters not shown …\necho 0") {
			t.Fatalf("100 lines not cut visibly to their first and last lines:\n%s", text)
		}
	})
	t.Run("within a line", func(t *testing.T) {
		cwd := "/" + strings.Repeat("d", 3000)
		p, err := parseAs(t, "claude-code", bash(cwd, "ls"))
		if err != nil {
			t.Fatal(err)
		}
		o := p.Request(home).Origin
		if !strings.HasPrefix(o, "Claude Code in /ddd") || !strings.HasSuffix(o, "d…") || len(o) > dialog.MaxOriginBytes {
			t.Fatalf("a long directory is not cut visibly to fit the origin line: %d bytes, %q", len(o), o)
		}
	})
	t.Run("head and tail", func(t *testing.T) {
		text, r := shown(t, "echo start\n"+strings.Repeat("x", 5000)+"\nrm -rf ~/important")
		if !strings.Contains(text, msgRunCommand+"\n\necho start\n") || !strings.Contains(text, "\nrm -rf ~/important\n\nAsked by") {
			t.Fatalf("a cut command does not keep its head and tail:\n%s", text)
		}
		if r.DefaultApprove || r.ApproveFor != 0 || r.CancelLabel != labelDeny {
			t.Fatalf("a cut command's dialog has a default other than Deny: %+v", r)
		}
	})
	t.Run("the agent's words come before the command", func(t *testing.T) {
		p, err := parseAs(t, "claude-code", map[string]any{
			"hook_event_name": EventPermissionRequest, "cwd": "/w", "tool_name": "Bash",
			"tool_input": map[string]any{"command": "ls; rm -rf ~/x", "description": strings.Repeat("harmless listing ", 100)},
		})
		if err != nil {
			t.Fatal(err)
		}
		text, _ := p.Request(home).Shown(dialog.Screen, time.Time{}, time.Time{})
		if !strings.Contains(text, "…\n\nls; rm -rf ~/x\n\nAsked by") {
			t.Fatalf("a long description pushes the command out of view:\n%s", text)
		}
	})
	t.Run("at and over the limit", func(t *testing.T) {
		p, err := parseAs(t, "claude-code", bash("/w", strings.Repeat("y", maxShownBytes)))
		if err != nil {
			t.Fatal(err)
		}
		if m := p.Request(home).Message; strings.Contains(m, "not shown") {
			t.Fatalf("a command within the limit is cut in the request:\n%.300s", m)
		}
		text, r := shown(t, strings.Repeat("y", 100000)+" zebra")
		if !strings.Contains(r.Message, " characters not shown …") || len(r.Message) > maxShownBytes+1000 {
			t.Fatalf("a 100 KB command is not cut in the request: %d bytes", len(r.Message))
		}
		var n int
		for _, row := range strings.Split(text, "\n") {
			if strings.HasSuffix(row, " characters not shown …") {
				if _, err := fmt.Sscanf(strings.ReplaceAll(row, ",", ""), "… %d characters not shown …", &n); err != nil {
					t.Fatal(err)
				}
			}
		}
		seen := 0
		for _, row := range strings.Split(text, "\n") {
			seen += strings.Count(row, "y")
		}
		// What is shown and what the line says make up the command.
		if n+seen < 100006-100 || n+seen > 100006+100 || !strings.Contains(text, "y zebra\n\nAsked by") {
			t.Fatalf("%d characters said not shown and %d shown of a 100,006-character command:\n%s", n, seen, text)
		}
	})
}

// A command padded with blank lines, spaces, tabs, Unicode spaces or line
// separators shows every non-blank part of it in the dialog, the
// terminal and the phone (they all show Request.Shown): the padding is a
// marker, and nothing is cut.
func TestPaddedCommandShowsItsTail(t *testing.T) {
	for _, c := range padding.Cases {
		t.Run(c.Name, func(t *testing.T) {
			p, err := parseAs(t, "claude-code", bash("/w", padding.Head+c.Pad+padding.Tail))
			if err != nil {
				t.Fatal(err)
			}
			call := p.Call(home, DefaultSettings())
			if err := call.Validate(); err != nil {
				t.Fatalf("the call does not validate: %v", err)
			}
			shown, _ := call.Request.Shown(dialog.Screen, time.Time{}, time.Time{})
			want := msgRunCommand + "\n\n" + padding.Head
			if !strings.HasPrefix(shown, want) || !strings.Contains(shown, padding.Tail) || strings.Contains(shown, "not shown") {
				t.Fatalf("the dialog does not show the head and the tail whole:\n%.600s", shown)
			}
			if lines := strings.Count(shown, "\n") + 1; lines > 8 {
				t.Errorf("the dialog's text takes %d lines:\n%.600s", lines, shown)
			}
		})
	}
}

func TestHostileText(t *testing.T) {
	cases := []struct {
		name    string
		payload map[string]any
		want    []string // visible in the message
	}{
		{"ANSI escapes", bash("/w", "echo \x1b[31mred\x1b[0m; \x1b]0;title\x07"), []string{`echo \x1b[31mred\x1b[0m; \x1b]0;title\x07`}},
		{"bidi overrides", bash("/w", "ls \u202egnp.exe\u202c \u2066x\u2069"), []string{`ls ⟨U+202E⟩gnp.exe⟨U+202C⟩ ⟨U+2066⟩x⟨U+2069⟩`}},
		{"NUL", bash("/w", "rm -rf /\u0000 harmless"), []string{`rm -rf /\x00 harmless`}},
		{"C1 controls and invisible characters", bash("/w", "a\u0085b\u009bc\u200bd\ufeffe\u00adf\u2028g"), []string{`a\u0085b\u009bc⟨U+200B⟩d⟨U+FEFF⟩e⟨U+00AD⟩f\u2028g`}},
		{"carriage return hiding text", bash("/w", "rm -rf ~\rls"), []string{`rm -rf ~\x0dls`}},
		{"a tag character", bash("/w", "x\U000E0041y"), []string{`x⟨U+E0041⟩y`}},
		{"control characters in the directory", bash("/w/\x1b[2J\n/evil", "ls"), []string{`in /w/\x1b[2J\n/evil`}},
		{"control characters in the description", map[string]any{
			"hook_event_name": EventPermissionRequest, "cwd": "/w", "tool_name": "Bash",
			"tool_input": map[string]any{"command": "ls", "description": "fine\x1b[8m hidden"},
		}, []string{`Claude Code says: fine\x1b[8m hidden`}},
		{"control characters in an MCP tool's name", map[string]any{
			"hook_event_name": EventPermissionRequest, "cwd": "/w", "tool_name": "mcp__s\x1b__t\u202e",
			"tool_input": map[string]any{"q": "\u202e"},
		}, []string{`Use the tool "t⟨U+202E⟩" of the MCP server "s\x1b"?`, `{"q":"⟨U+202E⟩"}`}},
		{"a megabyte command", bash("/w", strings.Repeat("\x1b", 1<<20)), []string{"\n\n" + strings.Repeat(`\x1b`, 15) + "\n", " characters not shown …\n" + strings.Repeat(`\x1b`, 15) + "\n"}},
		{"a directory over the scope's limit", bash("/"+strings.Repeat("\u202e", 3000), "ls"), []string{`in /⟨U+202E ×3000⟩`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := parseAs(t, "claude-code", c.payload)
			if err != nil {
				t.Fatal(err)
			}
			call := p.Call(home, DefaultSettings())
			if err := call.Validate(); err != nil {
				t.Fatalf("the call does not validate: %v", err)
			}
			shown, _ := call.Request.Shown(dialog.Screen, time.Time{}, time.Time{})
			for _, w := range c.want {
				if !strings.Contains(shown, w) {
					t.Errorf("the dialog lacks %q:\n%.2000s", w, shown)
				}
			}
			if len(call.Request.Message) > 20<<10 {
				t.Errorf("message of %d bytes", len(call.Request.Message))
			}
		})
	}
}

// Go's decoder reads invalid UTF-8 in a JSON string as U+FFFD, which shows;
// dialog.Literal shows invalid bytes that reach it as \xNN.
func TestInvalidUTF8(t *testing.T) {
	raw := []byte("{\"hook_event_name\":\"PermissionRequest\",\"cwd\":\"/w\xff\",\"tool_name\":\"Ba\xc3sh\",\"tool_input\":{\"command\":\"ls \xfe\xff\"}}")
	p, err := Parse(hostOf(t, "claude-code/x"), raw)
	if err != nil {
		t.Fatal(err)
	}
	c := p.Call(home, DefaultSettings())
	if err := c.Validate(); err != nil {
		t.Fatalf("the call does not validate: %v", err)
	}
	if !strings.Contains(c.Request.Message, "ls \ufffd\ufffd") {
		t.Errorf("message:\n%s", c.Request.Message)
	}
	if got := dialog.Literal("a\xffb\xe2\x80", true); got != `a\xffb\xe2\x80` {
		t.Errorf("Literal of invalid UTF-8: %q", got)
	}
	if got := dialog.Literal("tab\there\nnew", false); got != `tab\there\nnew` {
		t.Errorf("Literal within a line: %q", got)
	}
}

func TestParseRefuses(t *testing.T) {
	cases := []struct {
		name string
		host string
		in   string
		want error
		says string
	}{
		{"empty input", "claude-code", ``, ErrMalformed, "not one JSON object"},
		{"not JSON", "claude-code", `tool_name=Bash`, ErrMalformed, "not one JSON object"},
		{"an array", "codex", `[{"hook_event_name":"PermissionRequest"}]`, ErrMalformed, "not one JSON object"},
		{"two objects", "codex", `{} {}`, ErrMalformed, "not one JSON object"},
		{"null", "codex", `null`, ErrMalformed, "hook_event_name is missing"},
		{"no event", "claude-code", `{"cwd":"/w","tool_name":"Bash","tool_input":{}}`, ErrMalformed, "hook_event_name is missing"},
		{"event of the wrong type", "claude-code", `{"hook_event_name":7,"cwd":"/w","tool_name":"Bash","tool_input":{}}`, ErrMalformed, "not one JSON object"},
		{"no cwd", "claude-code", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}`, ErrMalformed, "cwd is missing"},
		{"empty cwd", "claude-code", `{"hook_event_name":"PreToolUse","cwd":"","tool_name":"Bash","tool_input":{}}`, ErrMalformed, "cwd is missing"},
		{"no tool", "codex", `{"hook_event_name":"PermissionRequest","cwd":"/w","tool_input":{}}`, ErrMalformed, "tool_name is missing"},
		{"no input", "codex", `{"hook_event_name":"PermissionRequest","cwd":"/w","tool_name":"Bash"}`, ErrMalformed, "tool_input is missing"},
		{"null input", "codex", `{"hook_event_name":"PermissionRequest","cwd":"/w","tool_name":"Bash","tool_input":null}`, ErrMalformed, "tool_input is missing"},
		{"input not an object", "codex", `{"hook_event_name":"PermissionRequest","cwd":"/w","tool_name":"Bash","tool_input":"ls"}`, ErrMalformed, "tool_input is not a JSON object"},
		{"Claude Code's Stop", "claude-code", `{"hook_event_name":"Stop","cwd":"/w","stop_hook_active":false}`, ErrUnsupportedEvent, "Claude Code takes no decision from a Stop hook; install ask-confirm hook claude-code under PermissionRequest or PreToolUse"},
		{"Claude Code's PostToolUse", "claude-code", `{"hook_event_name":"PostToolUse","cwd":"/w","tool_name":"Bash","tool_input":{}}`, ErrUnsupportedEvent, "PostToolUse"},
		{"Codex's PreToolUse", "codex", string(readTestdata(t, "codex/pretooluse-bash.json")), ErrUnsupportedEvent, "Codex takes no decision from a PreToolUse hook; install ask-confirm hook codex under PermissionRequest"},
		{"an event with escapes", "codex", `{"hook_event_name":"Pre\u001b[2J"}`, ErrUnsupportedEvent, `Pre\x1b[2J`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, _ := LookupHost(c.host)
			_, err := Parse(h, []byte(c.in))
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("error %v, want %v saying %q", err, c.want, c.says)
			}
			if strings.ContainsAny(err.Error(), "\n\x1b") {
				t.Fatalf("error is not one plain line: %q", err)
			}
		})
	}
	t.Run("over the size limit", func(t *testing.T) {
		big := append([]byte(`{"hook_event_name":"PermissionRequest","cwd":"/w","tool_name":"Bash","tool_input":{"command":"`), make([]byte, MaxInputBytes)...)
		if _, err := Parse(hostOf(t, "codex/x"), big); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "larger than 16 MiB") {
			t.Fatalf("error %v", err)
		}
	})
}

// The outputs, mirroring exactly the shapes the hosts document. Decoded
// with DisallowUnknownFields, as Codex does, they fail on any other field.
type (
	preToolUseOutput struct {
		HookSpecificOutput *struct {
			HookEventName            string  `json:"hookEventName"`
			PermissionDecision       string  `json:"permissionDecision"`
			PermissionDecisionReason *string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
		SystemMessage *string `json:"systemMessage"`
	}
	permissionRequestOutput struct {
		HookSpecificOutput *struct {
			HookEventName string `json:"hookEventName"`
			Decision      *struct {
				Behavior string  `json:"behavior"`
				Message  *string `json:"message"`
			} `json:"decision"`
		} `json:"hookSpecificOutput"`
		SystemMessage *string `json:"systemMessage"`
	}
)

// decodeStrictly decodes out, one JSON object and a newline, into v.
func decodeStrictly(t *testing.T, out []byte, v any) {
	t.Helper()
	if !json.Valid(out) || !strings.HasSuffix(string(out), "}\n") || strings.Count(string(out), "\n") != 1 {
		t.Fatalf("stdout is not one JSON object on one line: %q", out)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout %s does not have the documented shape: %v", out, err)
	}
}

func TestRespond(t *testing.T) {
	// The test's own clock: the answer was given the same day.
	answered := time.Date(2026, 5, 4, 14, 3, 0, 0, time.Local)
	now := answered.Add(time.Minute)
	at := " at 14:03"
	type want struct {
		verdict string // allow, deny or back
		reason  string // the reason, or the start of a hand-back's
	}
	cases := []struct {
		name string
		r    lifecycle.Result
		want want
	}{
		{"approved", lifecycle.Result{Status: lifecycle.StatusApproved, ExitCode: lifecycle.ExitApproved}, want{"allow", "approved in the ask-confirm dialog"}},
		{"approved, remembered", lifecycle.Result{Status: lifecycle.StatusApproved, ExitCode: lifecycle.ExitApproved, Remembered: true, AnsweredAt: answered}, want{"allow", "approved in the ask-confirm dialog" + at}},
		{"approved without a person", lifecycle.Result{Status: lifecycle.StatusApproved, ExitCode: lifecycle.ExitApproved, Headless: true, Message: "approved without asking: no display (--if-headless approve)"}, want{"back", "ask-confirm: approved without asking"}},
		{"approved with a failing code", lifecycle.Result{Status: lifecycle.StatusApproved, ExitCode: lifecycle.ExitInternal, Message: "recording: disk full"}, want{"back", "ask-confirm: recording: disk full"}},
		{"denied", lifecycle.Result{Status: lifecycle.StatusDenied, ExitCode: lifecycle.ExitDenied}, want{"deny", "denied in the ask-confirm dialog"}},
		{"denied, remembered", lifecycle.Result{Status: lifecycle.StatusDenied, ExitCode: lifecycle.ExitDenied, Remembered: true, AnsweredAt: answered}, want{"deny", "denied in the ask-confirm dialog" + at}},
		{"cancelled", lifecycle.Result{Status: lifecycle.StatusCancelled, ExitCode: lifecycle.ExitDenied}, want{"deny", "the request was cancelled with ask-confirm cancel"}},
		{"cancelled, remembered", lifecycle.Result{Status: lifecycle.StatusCancelled, ExitCode: lifecycle.ExitDenied, Remembered: true, AnsweredAt: answered}, want{"deny", "the request was cancelled with ask-confirm cancel"}},
		{"withdrawn", lifecycle.Result{Status: lifecycle.StatusWithdrawn, ExitCode: lifecycle.ExitDenied}, want{"back", "ask-confirm: nobody answered the dialog within 5m; it was closed"}},
		{"pending", lifecycle.Result{Status: lifecycle.StatusPending, ExitCode: lifecycle.ExitPending}, want{"back", "ask-confirm: the dialog gave no answer within 5m"}},
		{"expired", lifecycle.Result{Status: lifecycle.StatusExpired, ExitCode: lifecycle.ExitExpired}, want{"back", "ask-confirm: nobody answered the dialog before it timed out"}},
		{"headless", lifecycle.Result{Status: lifecycle.StatusHeadless, ExitCode: lifecycle.ExitHeadless, Headless: true, Message: "nobody can be asked: no display"}, want{"back", "ask-confirm: nobody can be asked: no display"}},
		{"failed", lifecycle.Result{Status: lifecycle.StatusFailed, ExitCode: lifecycle.ExitFailed, Message: "the dialog could not be shown: zenity crashed"}, want{"back", "ask-confirm: the dialog could not be shown: zenity crashed"}},
		{"superseded", lifecycle.Result{Status: lifecycle.StatusSuperseded, ExitCode: lifecycle.ExitSuperseded}, want{"back", "ask-confirm: the dialog was replaced"}},
		{"error", lifecycle.Result{Status: lifecycle.StatusError, ExitCode: lifecycle.ExitInternal, Message: "the answer store is unusable: \x1b[2Jlocked"}, want{"back", `ask-confirm: the answer store is unusable: \x1b[2Jlocked`}},
		{"error without a message", lifecycle.Result{Status: lifecycle.StatusError, ExitCode: lifecycle.ExitInternal}, want{"back", "ask-confirm: the dialog gave no answer"}},
		{"an unknown status", lifecycle.Result{Status: "maybe", ExitCode: lifecycle.ExitApproved}, want{"back", "ask-confirm: "}},
		{"the zero result", lifecycle.Result{}, want{"back", "ask-confirm: "}},
	}
	payloads := []string{"claude-code/pretooluse-bash.json", "claude-code/permissionrequest-bash.json", "codex/permissionrequest-bash.json",
		"gemini/beforetool-run_shell_command.json", "cursor/beforeshellexecution.json", "cursor/beforemcpexecution.json"}
	for _, file := range payloads {
		p := load(t, file)
		for _, c := range cases {
			t.Run(file+"/"+c.name, func(t *testing.T) {
				resp := p.Respond(c.r, DefaultSettings(), NotStopped, now)
				if resp.Code != ExitAnswered {
					t.Fatalf("exit %d with a decision on stdout; both hosts read stdout only after exit 0", resp.Code)
				}
				verdict, reason := readResponse(t, p, resp.Stdout)
				wantReason, exact := c.want.reason, c.want.verdict != "back"
				if c.want.verdict == "allow" && (p.Event == EventPermissionRequest || p.Host.Name == "cursor") {
					wantReason = "" // an allow carries nothing else
				}
				if verdict != c.want.verdict || (exact && reason != wantReason) || !strings.HasPrefix(reason, wantReason) {
					t.Fatalf("%s %q, want %s %q\nstdout: %s", verdict, reason, c.want.verdict, wantReason, resp.Stdout)
				}
				if verdict == "allow" && c.r.Status != lifecycle.StatusApproved {
					t.Fatalf("%s allowed", c.r.Status)
				}
				if c.want.verdict == "back" && c.want.reason == "ask-confirm: " && len(reason) <= len("ask-confirm: ") {
					t.Fatalf("a hand-back says nothing: %q", reason)
				}
			})
		}
	}
}

// readResponse decodes a hook's stdout for event strictly and returns its
// verdict (allow, deny or back) and reason.
func readResponse(t *testing.T, p Payload, stdout []byte) (verdict, reason string) {
	t.Helper()
	event := p.Event
	switch p.Host.Name {
	case "gemini":
		var o struct {
			Decision      string  `json:"decision"`
			Reason        *string `json:"reason"`
			SystemMessage *string `json:"systemMessage"`
		}
		decodeStrictly(t, stdout, &o)
		switch {
		case (o.Decision == "allow" || o.Decision == "deny") && o.Reason != nil && o.SystemMessage == nil:
			return o.Decision, *o.Reason
		case o.Decision == "deny" && o.Reason != nil && o.SystemMessage != nil && *o.Reason == *o.SystemMessage:
			// A question nobody answered is denied too, saying so: ask
			// would wait forever in gemini -p.
			if back, ok := strings.CutSuffix(*o.Reason, notRunAskAgain); ok {
				return "back", back
			}
		}
		t.Fatalf("Gemini CLI output %s", stdout)
	case "cursor":
		var o struct {
			Permission   string  `json:"permission"`
			UserMessage  *string `json:"user_message"`
			AgentMessage *string `json:"agent_message"`
		}
		decodeStrictly(t, stdout, &o)
		switch {
		case o.Permission == "allow" && o.UserMessage == nil && o.AgentMessage == nil:
			return "allow", ""
		case o.Permission == "deny" && o.UserMessage != nil && o.AgentMessage != nil && *o.UserMessage == *o.AgentMessage:
			// A question nobody answered is denied too, saying so: Cursor
			// leaves ask undefined for these events.
			if back, ok := strings.CutSuffix(*o.AgentMessage, notRunAskAgain); ok {
				return "back", back
			}
			return "deny", *o.AgentMessage
		}
		t.Fatalf("Cursor output %s", stdout)
	}
	if event == EventPreToolUse {
		var o preToolUseOutput
		decodeStrictly(t, stdout, &o)
		s := o.HookSpecificOutput
		if s == nil || s.HookEventName != EventPreToolUse || o.SystemMessage != nil || s.PermissionDecisionReason == nil {
			t.Fatalf("PreToolUse output %s: want hookSpecificOutput for PreToolUse with a reason, and nothing else", stdout)
		}
		switch s.PermissionDecision {
		case "allow", "deny", "defer":
			return s.PermissionDecision, *s.PermissionDecisionReason
		case "ask":
			return "back", *s.PermissionDecisionReason
		}
		t.Fatalf("permissionDecision %q", s.PermissionDecision)
	}
	var o permissionRequestOutput
	decodeStrictly(t, stdout, &o)
	s := o.HookSpecificOutput
	switch {
	case s == nil && o.SystemMessage != nil:
		return "back", *o.SystemMessage
	case s == nil || s.HookEventName != EventPermissionRequest || s.Decision == nil || o.SystemMessage != nil:
		t.Fatalf("PermissionRequest output %s: want a decision or only a systemMessage", stdout)
	case s.Decision.Behavior == "allow" && s.Decision.Message == nil:
		return "allow", ""
	case s.Decision.Behavior == "allow":
		t.Fatalf("an allow with a message: %s", stdout)
	case s.Decision.Behavior == "deny" && s.Decision.Message != nil:
		return "deny", *s.Decision.Message
	}
	t.Fatalf("PermissionRequest decision %s", stdout)
	return "", ""
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 12345: "12,345", 1047076: "1,047,076"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// A hook its host stopped says so when it hands the question back, rather
// than that its wait ran out; it never allows.
func TestRespondWhenStopped(t *testing.T) {
	p := load(t, "claude-code/permissionrequest-bash.json")
	r := p.Respond(lifecycle.Result{Status: lifecycle.StatusWithdrawn, ExitCode: lifecycle.ExitDenied}, DefaultSettings(), StoppedBySignal, time.Unix(1, 0))
	out := string(r.Stdout)
	if !strings.Contains(out, "the hook was stopped before anyone answered") || strings.Contains(out, "allow") || r.Code != ExitAnswered {
		t.Fatalf("stopped: exit %d, %s", r.Code, out)
	}
}

// With --defer, a Claude Code PreToolUse question stays open past the
// wait, and one nobody answered is deferred; every other host and event
// keeps withdrawing.
func TestDefer(t *testing.T) {
	s := DefaultSettings()
	s.Wait, s.Defer = 2*time.Minute, time.Hour
	pre := load(t, "claude-code/pretooluse-bash.json")
	// An attended session ignores defer: the hook withdraws, as ever.
	if c := pre.Call(home, s); !c.Withdraw {
		t.Fatal("--defer deferred in an attended session")
	}
	s.Unattended = true
	c := pre.Call(home, s)
	if c.Withdraw || c.Timeout != time.Hour+2*time.Minute {
		t.Fatalf("a deferring PreToolUse call: withdraw %v, timeout %s", c.Withdraw, c.Timeout)
	}
	verdict, reason := readResponse(t, pre, pre.Respond(lifecycle.Result{Status: lifecycle.StatusPending, ExitCode: lifecycle.ExitPending}, s, NotStopped, time.Unix(1, 0)).Stdout)
	if verdict != "defer" || !strings.Contains(reason, "claude -p --resume") {
		t.Fatalf("an unanswered deferring call: %s %q", verdict, reason)
	}
	for _, file := range []string{"claude-code/permissionrequest-bash.json", "codex/permissionrequest-bash.json", "gemini/beforetool-run_shell_command.json"} {
		p := load(t, file)
		if c := p.Call(home, s); !c.Withdraw {
			t.Errorf("%s defers", file)
		}
	}
	s.Defer = -time.Second
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "--defer") {
		t.Fatalf("a negative --defer: %v", err)
	}
}

// A remembered answer given the day before says which day: "at 23:58"
// alone, read after midnight, reads as a minute ago.
func TestRespondNamesTheDayOfARememberedAnswer(t *testing.T) {
	answered := time.Date(2026, 5, 4, 23, 58, 0, 0, time.Local)
	r := lifecycle.Result{Status: lifecycle.StatusApproved, ExitCode: lifecycle.ExitApproved, Remembered: true, AnsweredAt: answered}
	for now, want := range map[time.Time]string{
		answered.Add(time.Minute):                     "approved in the ask-confirm dialog at 23:58",
		time.Date(2026, 5, 5, 0, 1, 0, 0, time.Local): "approved in the ask-confirm dialog at 23:58 on Mon 4 May",
	} {
		if v, reason := judge(r, time.Minute, now); v != allow || reason != want {
			t.Errorf("read at %v: %v %q, want allow %q", now, v, reason, want)
		}
	}
}
