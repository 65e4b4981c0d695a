package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The CI recipes: the GitHub Action (action.yml), the GitLab template
// (templates/ask-confirm.yml) and the workflows of docs/ci.md, checked with
// actionlint (github.com/rhysd/actionlint, pinned as a tool in
// scripts/cilint) and shellcheck (Debian's), and their ask steps run with a
// scripted ask-confirm. The install itself, against a release built by
// scripts/release, is internal/releasetest's.

var updateGitLabTemplate = flag.Bool("update-gitlab-template", false, "copy scripts/install-release into templates/ask-confirm.yml")

// needShellcheck is shellcheck's path. Without it actionlint checks no
// run: body at all, so its absence fails the test rather than passing it.
func needShellcheck(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Fatal("shellcheck is not on PATH, and without it no run: body is checked; install it (Debian/Ubuntu: apt-get install shellcheck; scripts/test does)")
	}
	return p
}

var (
	toolsOnce                  sync.Once
	actionlintBin, yamljsonBin string
	toolsErr                   error
)

// cilintTools builds actionlint and yamljson from scripts/cilint, once.
func cilintTools(t *testing.T) (actionlint, yamljson string) {
	t.Helper()
	toolsOnce.Do(func() {
		out, err := exec.Command("go", "-C", "scripts/cilint", "tool", "-n", "actionlint").Output()
		if err != nil {
			toolsErr = fmt.Errorf("building actionlint (go -C scripts/cilint tool -n actionlint): %w", err)
			return
		}
		actionlintBin = strings.TrimSpace(string(out))
		dir, err := os.MkdirTemp("", "cilint")
		if err != nil {
			toolsErr = err
			return
		}
		yamljsonBin = filepath.Join(dir, "yamljson")
		if out, err := exec.Command("go", "-C", "scripts/cilint", "build", "-o", yamljsonBin, "./yamljson").CombinedOutput(); err != nil {
			toolsErr = fmt.Errorf("building scripts/cilint/yamljson: %v\n%s", err, out)
		}
	})
	if toolsErr != nil {
		t.Fatal(toolsErr)
	}
	return actionlintBin, yamljsonBin
}

// yamlDocs is the YAML file's documents, as encoding/json reads them.
func yamlDocs(t *testing.T, path string) []any {
	t.Helper()
	_, yamljson := cilintTools(t)
	out, err := exec.Command(yamljson, path).Output()
	if err != nil {
		t.Fatalf("reading %s as YAML: %v\n%s", path, err, stderrOf(err))
	}
	var docs []any
	if err := json.Unmarshal(out, &docs); err != nil {
		t.Fatal(err)
	}
	return docs
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// actionlint runs actionlint, with shellcheck, on the workflows (name to
// text) in a scratch repository whose top holds action.yml, as a local
// action ("uses: ./") that the workflows may run. It returns what
// actionlint reported, empty when it found nothing.
func actionlint(t *testing.T, workflows map[string]string) string {
	t.Helper()
	shellcheck := needShellcheck(t)
	bin, _ := cilintTools(t)
	root := t.TempDir()
	wf := filepath.Join(root, ".github", "workflows")
	if err := os.MkdirAll(wf, 0o755); err != nil {
		t.Fatal(err)
	}
	action, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "action.yml"), action, 0o644); err != nil {
		t.Fatal(err)
	}
	// actionlint takes a directory for a repository, whose local actions it
	// reads, where it finds .github/workflows beside .git (a file will do).
	if err := os.WriteFile(filepath.Join(root, ".git"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-no-color", "-shellcheck", shellcheck, "-pyflakes", ""}
	for name, text := range workflows {
		if err := os.WriteFile(filepath.Join(wf, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, filepath.Join(".github", "workflows", name))
	}
	c := exec.Command(bin, args...)
	c.Dir = root
	out, err := c.CombinedOutput()
	if err != nil && c.ProcessState.ExitCode() != 1 {
		t.Fatalf("actionlint: %v\n%s", err, out)
	}
	if (err == nil) != (len(bytes.TrimSpace(out)) == 0) {
		t.Fatalf("actionlint exited %v and reported:\n%s", err, out)
	}
	return string(out)
}

// fencedBlocks are the ```LANG blocks of a Markdown text.
func fencedBlocks(text, lang string) []string {
	var blocks []string
	var cur []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case !in && line == "```"+lang:
			in, cur = true, nil
		case in && line == "```":
			in = false
			blocks = append(blocks, strings.Join(cur, "\n")+"\n")
		case in:
			cur = append(cur, line)
		}
	}
	return blocks
}

// pinnedAction is how docs/ci.md names the action: at a release's tag.
var pinnedAction = regexp.MustCompile(`(?m)^(\s*(?:- )?uses: )ask-confirm/ask-confirm@(v\d+\.\d+\.\d+)\s*$`)

// ciDocBlocks are docs/ci.md's YAML blocks, the GitHub workflows (which
// run on runs-on) and the GitLab pipelines (which run a script); a block
// that is neither fails the test, so none escapes the checks.
func ciDocBlocks(t *testing.T) (github, gitlab []string) {
	t.Helper()
	for _, b := range fencedBlocks(readText(t, "docs/ci.md"), "yaml") {
		switch {
		case strings.Contains(b, "runs-on:"):
			github = append(github, b)
		case strings.Contains(b, "script:"):
			gitlab = append(gitlab, b)
		default:
			t.Errorf("docs/ci.md has a yaml block that is neither a GitHub workflow nor a GitLab pipeline:\n%s", b)
		}
	}
	return github, gitlab
}

// Every GitHub workflow of docs/ci.md passes actionlint with shellcheck,
// with the action it names checked against action.yml (its inputs, the
// required version); the action is pinned at a release's tag and installs
// that same release, and nothing is installed from source or "latest".
func TestCIDocGitHubWorkflowsLint(t *testing.T) {
	github, _ := ciDocBlocks(t)
	if len(github) < 3 {
		t.Fatalf("docs/ci.md has %d GitHub workflows, want the deploy, the matrix and the gate of 2 of 3", len(github))
	}
	workflows := map[string]string{}
	for i, b := range github {
		if strings.Contains(b, "go install") || strings.Contains(b, "@latest") {
			t.Errorf("docs/ci.md's workflow %d installs unpinned:\n%s", i+1, b)
		}
		uses := pinnedAction.FindAllStringSubmatch(b, -1)
		if len(uses) == 0 || strings.Count(b, "ask-confirm/ask-confirm@") != len(uses) {
			t.Errorf("docs/ci.md's workflow %d does not run the action pinned at a release's tag:\n%s", i+1, b)
		}
		for _, u := range uses {
			if !strings.Contains(b, "version: "+u[2]+"\n") {
				t.Errorf("docs/ci.md's workflow %d runs the action at %s but does not install version %s", i+1, u[2], u[2])
			}
		}
		// The action is the one in this repository: actionlint reads a local
		// action's action.yml and checks the step's inputs against it.
		w := pinnedAction.ReplaceAllString(b, "${1}./")
		// A fragment of jobs (the matrix's) is a job of its own.
		if strings.HasPrefix(w, "  ") {
			w = "jobs:\n" + w
		}
		workflows[fmt.Sprintf("ci-md-%d.yml", i+1)] = "on: push\n" + w
	}
	if out := actionlint(t, workflows); out != "" {
		t.Errorf("actionlint on docs/ci.md's workflows (numbered in order):\n%s", out)
	}
}

// A workflow of docs/ci.md that breaks the rules is reported: the lint is
// not passing everything (a step's input that action.yml lacks, a run:
// body that shellcheck faults).
func TestCIDocLintCatchesMistakes(t *testing.T) {
	out := actionlint(t, map[string]string{"bad.yml": `on: push
jobs:
  deploy:
    runs-on: ubuntu-latest
    steps:
      - uses: ./
        with:
          version: v1.2.3
          mesage: Deploy?
      - run: echo $1 $UNDEFINED_lower_var
`})
	for _, want := range []string{`input "mesage" is not defined`, "SC2086"} {
		if !strings.Contains(out, want) {
			t.Errorf("actionlint does not report %q:\n%s", want, out)
		}
	}
}

// compositeAsWorkflow is action.yml's steps as a reusable workflow's job,
// which actionlint checks as it checks any workflow: every expression
// (inputs.*, steps.*.outputs.*, the outputs' values) and, with
// shellcheck, every run: body. (actionlint checks an action's metadata,
// but not a composite action's steps.)
func compositeAsWorkflow(t *testing.T) (string, map[string]any) {
	t.Helper()
	docs := yamlDocs(t, "action.yml")
	action := docs[0].(map[string]any)
	runs := action["runs"].(map[string]any)
	if runs["using"] != "composite" {
		t.Fatalf("action.yml runs %v, not a composite action", runs["using"])
	}
	inputs := map[string]any{}
	for name := range action["inputs"].(map[string]any) {
		inputs[name] = map[string]any{"type": "string", "required": false}
	}
	outputs := map[string]any{}
	for name, o := range action["outputs"].(map[string]any) {
		outputs[name] = o.(map[string]any)["value"]
	}
	wf := map[string]any{
		"on": map[string]any{"workflow_call": map[string]any{"inputs": inputs}},
		"jobs": map[string]any{"action": map[string]any{
			"runs-on": "ubuntu-latest",
			"outputs": outputs,
			"steps":   runs["steps"],
		}},
	}
	b, err := json.MarshalIndent(wf, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n", action
}

// action.yml's steps pass actionlint with shellcheck; every input is read
// and every output is a step's output that the step writes.
func TestActionStepsLint(t *testing.T) {
	wf, action := compositeAsWorkflow(t)
	if out := actionlint(t, map[string]string{"action-steps.yml": wf}); out != "" {
		t.Errorf("actionlint on action.yml's steps (as the workflow below):\n%s\n%s", out, wf)
	}
	steps := action["runs"].(map[string]any)["steps"].([]any)
	text := readText(t, "action.yml")
	for name := range action["inputs"].(map[string]any) {
		if !strings.Contains(text, "${{ inputs."+name+" }}") {
			t.Errorf("action.yml's input %s is read by no step", name)
		}
	}
	written := map[string]bool{}
	for _, s := range steps {
		step := s.(map[string]any)
		id, _ := step["id"].(string)
		run, _ := step["run"].(string)
		for _, m := range regexp.MustCompile(`echo "([a-z-]+)=`).FindAllStringSubmatch(run, -1) {
			written["steps."+id+".outputs."+m[1]] = true
		}
	}
	for name, o := range action["outputs"].(map[string]any) {
		v := o.(map[string]any)["value"].(string)
		ref := strings.TrimSuffix(strings.TrimPrefix(v, "${{ "), " }}")
		if !written[ref] {
			t.Errorf("action.yml's output %s is %s, which no step writes (written: %v)", name, v, written)
		}
	}
	if req, _ := action["inputs"].(map[string]any)["version"].(map[string]any)["required"].(bool); !req {
		t.Error("action.yml's version is not required: the install must be pinned")
	}
}

// actionStep is the run: body and env of action.yml's step of that id.
func actionStep(t *testing.T, id string) (string, map[string]string) {
	t.Helper()
	_, action := compositeAsWorkflow(t)
	for _, s := range action["runs"].(map[string]any)["steps"].([]any) {
		step := s.(map[string]any)
		if step["id"] == id {
			env := map[string]string{}
			for k, v := range step["env"].(map[string]any) {
				env[k] = fmt.Sprint(v)
			}
			return step["run"].(string), env
		}
	}
	t.Fatalf("action.yml has no step %s", id)
	return "", nil
}

// scriptedAskConfirm writes, into a new directory, an ask-confirm that
// records its arguments, one a line, in DIR/args, prints out and exits
// with code, and returns the directory.
func scriptedAskConfirm(t *testing.T, out string, code int) string {
	t.Helper()
	dir := t.TempDir()
	script := fmt.Sprintf("#!/bin/sh\nprintf '%%s\\n' \"$@\" >%q\nprintf '%%s\\n' %q\nexit %d\n",
		filepath.Join(dir, "args"), out, code)
	if err := os.WriteFile(filepath.Join(dir, "ask-confirm"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The action's ask step, run as the runner runs it (bash, the inputs in
// its environment) with a scripted ask-confirm: it passes the inputs given,
// and only those, as flags; sets the outputs from --json; writes who voted
// what to the job's summary; and ends as docs/ci.md says: on with 0, exit
// 3 with a notice while pending, the code with an error otherwise.
func TestActionAskStep(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Fatal("jq is not on PATH; the action's ask step reads --json with it, as GitHub's runners have it (Debian: apt-get install jq; scripts/test does)")
	}
	run, env := actionStep(t, "ask")
	approved := `{"status":"approved","exit_code":0,"key":"53b2b65afb00f8aef4c1dbdcf4d89b138395d277192206332639800e6d8dd5e4","approvers":["alice","bob","carol"],"approvals":2,"approvals_needed":2,"votes":[{"by":"alice","vote":"approve","at":"2026-11-22T13:58:10Z"},{"by":"bob|x","vote":"approve","at":"2026-11-22T14:05:01Z"}],"approved_by":["alice","bob|x"],"message":"approved by alice and bob|x (2 of 2 approvals)"}`
	pending := `{"status":"pending","exit_code":3,"key":"53b2b65afb00f8aef4c1dbdcf4d89b138395d277192206332639800e6d8dd5e4","should_retry":true,"approvals":1,"approvals_needed":2,"votes":[{"by":"alice","vote":"approve","at":"2026-11-22T13:58:10Z"}],"message":"pending: 1 of 2 approvals"}`
	denied := `{"status":"denied","exit_code":1,"key":"53b2b65afb00f8aef4c1dbdcf4d89b138395d277192206332639800e6d8dd5e4","votes":[{"by":"carol","vote":"deny","at":"2026-11-22T13:58:10Z"}],"denied_by":["carol"],"message":"denied by carol"}`
	cases := []struct {
		name     string
		out      string
		code     int
		outputs  []string
		summary  []string
		log      string
		wantExit int
	}{
		{"approved", approved, 0,
			[]string{"exit-code=0", "status=approved", "approved-by=alice,bob|x", "denied-by=", `votes=[{"by":"alice","vote":"approve","at":"2026-11-22T13:58:10Z"},{"by":"bob|x","vote":"approve","at":"2026-11-22T14:05:01Z"}]`, "result=" + approved},
			[]string{"### Deploy $(touch pwned): approved", "> approved by alice and bob\\|x (2 of 2 approvals)", "| alice | approve | 2026-11-22T13:58:10Z |", "| bob\\|x | approve |", "exit code 0, request `53b2b65afb00`"},
			"ask-confirm: approved by alice and bob|x", 0},
		{"pending", pending, 3,
			[]string{"exit-code=3", "status=pending", "approved-by=", "result=" + pending},
			[]string{"### Deploy $(touch pwned): pending", "| alice | approve |"},
			"::notice title=ask-confirm::waiting for approval on the phone (pending: 1 of 2 approvals); re-run this job once it is answered", 3},
		{"denied", denied, 1,
			[]string{"exit-code=1", "status=denied", "denied-by=carol"},
			[]string{"### Deploy $(touch pwned): denied", "| carol | deny |"},
			"::error title=ask-confirm::denied by carol (exit 1)", 1},
		{"no JSON", "", 2,
			[]string{"exit-code=2"}, nil,
			"::error title=ask-confirm::ask-confirm exited 2 without its JSON outcome", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bin := scriptedAskConfirm(t, tc.out, tc.code)
			work := t.TempDir()
			output, summary := filepath.Join(work, "output"), filepath.Join(work, "summary")
			c := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", run)
			c.Dir = work
			c.Env = append(os.Environ(), "GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY="+summary)
			inputs := map[string]string{"BIN": bin, "MESSAGE": "Deploy 'abc' $(touch pwned)?", "TITLE": "Deploy $(touch pwned)",
				"KEY": "deploy-abc", "WAIT": "30s", "COLLECT_WITHIN": "12h", "REMOTE": "only", "APPROVERS": "alice,bob,carol", "APPROVALS": "2"}
			for k := range env {
				c.Env = append(c.Env, k+"="+inputs[k])
			}
			log, err := c.CombinedOutput()
			if got := c.ProcessState.ExitCode(); got != tc.wantExit {
				t.Errorf("the step exited %d (%v), want %d:\n%s", got, err, tc.wantExit, log)
			}
			if !strings.Contains(string(log), tc.log) {
				t.Errorf("the step's log lacks %q:\n%s", tc.log, log)
			}
			args := strings.Split(strings.TrimSpace(readText(t, filepath.Join(bin, "args"))), "\n")
			wantArgs := []string{"--json", "--message", "Deploy 'abc' $(touch pwned)?", "--title", "Deploy $(touch pwned)", "--key", "deploy-abc",
				"--wait", "30s", "--collect-within", "12h", "--approvers", "alice,bob,carol", "--approvals", "2", "--remote", "only"}
			if !slices.Equal(args, wantArgs) {
				t.Errorf("ask-confirm ran with\n  %q\nwant\n  %q", args, wantArgs)
			}
			if _, err := os.Stat(filepath.Join(work, "pwned")); err == nil {
				t.Error("an input's $( ) ran as a command")
			}
			outLines := strings.Split(readText(t, output), "\n")
			for _, want := range tc.outputs {
				if !slices.Contains(outLines, want) {
					t.Errorf("GITHUB_OUTPUT lacks the line %q:\n%s", want, strings.Join(outLines, "\n"))
				}
			}
			if tc.summary != nil {
				s := readText(t, summary)
				for _, want := range tc.summary {
					if !strings.Contains(s, want) {
						t.Errorf("the job's summary lacks %q:\n%s", want, s)
					}
				}
			}
		})
	}
}

// gitlabTemplate is templates/ask-confirm.yml: its spec and its jobs.
func gitlabTemplate(t *testing.T) (spec, jobs map[string]any) {
	t.Helper()
	docs := yamlDocs(t, "templates/ask-confirm.yml")
	if len(docs) != 2 {
		t.Fatalf("templates/ask-confirm.yml has %d YAML documents, want 2: the spec, then the jobs", len(docs))
	}
	return docs[0].(map[string]any)["spec"].(map[string]any), docs[1].(map[string]any)
}

// installHeredoc is the line that starts the copy of scripts/install-release
// in the template's script, and the one that ends it.
const installHeredoc, installHeredocEnd = "<<'ASK_CONFIRM_INSTALL_RELEASE'\n", "\nASK_CONFIRM_INSTALL_RELEASE\n"

// templateScript is the .ask-confirm job's script items.
func templateScript(t *testing.T, jobs map[string]any) []string {
	t.Helper()
	job, ok := jobs[".ask-confirm"].(map[string]any)
	if !ok {
		t.Fatalf("templates/ask-confirm.yml has no job .ask-confirm: %v", jobs)
	}
	var items []string
	for _, s := range job["script"].([]any) {
		items = append(items, s.(string))
	}
	return items
}

// shellcheck runs shellcheck on a script for the shell sh or bash, and
// returns what it reported, empty when it found nothing.
func shellcheck(t *testing.T, shell, script string) string {
	t.Helper()
	c := exec.Command(needShellcheck(t), "-s", shell, "-")
	c.Stdin = strings.NewReader(script)
	out, err := c.CombinedOutput()
	if err != nil && c.ProcessState.ExitCode() != 1 {
		t.Fatalf("shellcheck: %v\n%s", err, out)
	}
	return string(out)
}

// The GitLab template is YAML of a spec and a hidden job; its inputs are
// the action's (a version required, matching a release tag), each read
// into a variable; its script passes shellcheck as POSIX sh, a job's shell
// in an Alpine image; and its install is scripts/install-release, the same
// bytes, which passes shellcheck too.
func TestGitLabTemplate(t *testing.T) {
	spec, jobs := gitlabTemplate(t)
	inputs := spec["inputs"].(map[string]any)
	_, action := compositeAsWorkflow(t)
	var names, actionNames []string
	for name := range inputs {
		names = append(names, name)
	}
	for name := range action["inputs"].(map[string]any) {
		actionNames = append(actionNames, name)
	}
	slices.Sort(names)
	slices.Sort(actionNames)
	if !slices.Equal(names, actionNames) {
		t.Errorf("the template's inputs are %v, the action's %v", names, actionNames)
	}
	version := inputs["version"].(map[string]any)
	if _, ok := version["default"]; ok {
		t.Error("the template's version has a default: the install must be pinned by the pipeline")
	}
	re, err := regexp.Compile(fmt.Sprint(version["regex"]))
	if err != nil {
		t.Fatalf("the version's regex: %v", err)
	}
	for v, ok := range map[string]bool{"v1.2.3": true, "v1.2.3-rc.1": true, "latest": false, "main": false, "1.2": false} {
		if re.MatchString(v) != ok {
			t.Errorf("the version's regex %s matches %q: %v", re, v, !ok)
		}
	}
	text := readText(t, "templates/ask-confirm.yml")
	for _, name := range names {
		if !strings.Contains(text, "$[[ inputs."+name+" ]]") {
			t.Errorf("the template's input %s is read nowhere", name)
		}
	}
	for _, m := range regexp.MustCompile(`\$\[\[ inputs\.([a-z-]+) \]\]`).FindAllStringSubmatch(text, -1) {
		if _, ok := inputs[m[1]]; !ok {
			t.Errorf("the template reads the input %s, which its spec does not declare", m[1])
		}
	}

	items := templateScript(t, jobs)
	if len(items) != 2 {
		t.Fatalf("the template's script has %d items, want the install and the ask", len(items))
	}
	// The variables the job sets, as the shell sees them.
	var vars strings.Builder
	for k := range jobs[".ask-confirm"].(map[string]any)["variables"].(map[string]any) {
		fmt.Fprintf(&vars, "%s=${%s:-}\n", k, k)
	}
	for i, item := range items {
		if out := shellcheck(t, "sh", vars.String()+item); out != "" {
			t.Errorf("shellcheck on the template's script item %d:\n%s", i+1, out)
		}
	}

	script := readText(t, "scripts/install-release")
	if out := shellcheck(t, "sh", script); out != "" {
		t.Errorf("shellcheck on scripts/install-release:\n%s", out)
	}
	_, copied, ok := strings.Cut(items[0], installHeredoc)
	copied, _, ok2 := strings.Cut(copied, installHeredocEnd)
	if !ok || !ok2 {
		t.Fatalf("the template's install item holds no copy of scripts/install-release between %q and %q", installHeredoc, installHeredocEnd)
	}
	if copied+"\n" != script {
		if *updateGitLabTemplate {
			writeTemplateCopy(t, text, script)
			return
		}
		t.Error("the template's copy of scripts/install-release differs from it; go test -run TestGitLabTemplate -update-gitlab-template . copies it")
	}
}

// writeTemplateCopy puts script into the template's heredoc, indented as
// the block it is in.
func writeTemplateCopy(t *testing.T, text, script string) {
	t.Helper()
	const indent = "      "
	head, rest, _ := strings.Cut(text, installHeredoc)
	_, tail, _ := strings.Cut(rest, "\n"+indent+strings.TrimPrefix(installHeredocEnd, "\n"))
	var b strings.Builder
	b.WriteString(head + installHeredoc)
	for _, line := range strings.Split(strings.TrimSuffix(script, "\n"), "\n") {
		if line != "" {
			b.WriteString(indent + line)
		}
		b.WriteString("\n")
	}
	b.WriteString(indent + strings.TrimPrefix(installHeredocEnd, "\n") + tail)
	if err := os.WriteFile("templates/ask-confirm.yml", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The template's ask, run as a job's sh runs its script, with a scripted
// ask-confirm: it passes the inputs given, and only those, as flags, and
// goes on after 0, exits 3 with the retry's note while pending, and exits
// with the code otherwise; without a message it asks nothing.
func TestGitLabTemplateAsk(t *testing.T) {
	_, jobs := gitlabTemplate(t)
	ask := templateScript(t, jobs)[1]
	for _, tc := range []struct {
		code     int
		message  string
		wantExit int
		log      string
	}{
		{0, "Deploy 'abc' $(touch pwned)?", 0, "after"},
		{3, "Deploy?", 3, "ask-confirm: waiting for approval on the phone; retry this job once it is answered"},
		{1, "Deploy?", 1, "ask-confirm: not approved (exit 1)"},
		{1, "", 0, "after"},
	} {
		bin := scriptedAskConfirm(t, "", tc.code)
		work := t.TempDir()
		// As the runner runs a job's script: the items in one shell, one
		// after the other, stopping at the first that fails.
		c := exec.Command("sh", "-e", "-c", ask+"\necho after\n")
		c.Dir = work
		c.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "ASK_CONFIRM_CI_MESSAGE="+tc.message,
			"ASK_CONFIRM_CI_KEY=deploy-abc", "ASK_CONFIRM_CI_WAIT=30s", "ASK_CONFIRM_CI_TITLE=", "ASK_CONFIRM_CI_REMOTE=only")
		log, _ := c.CombinedOutput()
		if got := c.ProcessState.ExitCode(); got != tc.wantExit || !strings.Contains(string(log), tc.log) {
			t.Errorf("ask-confirm exiting %d, message %q: the item exited %d, want %d with %q:\n%s", tc.code, tc.message, got, tc.wantExit, tc.log, log)
		}
		args, err := os.ReadFile(filepath.Join(bin, "args"))
		if tc.message == "" {
			if err == nil {
				t.Errorf("without a message, ask-confirm ran with %q", args)
			}
			continue
		}
		want := "--message\n" + tc.message + "\n--key\ndeploy-abc\n--wait\n30s\n--remote\nonly\n"
		if string(args) != want {
			t.Errorf("ask-confirm ran with\n%s\nwant\n%s", args, want)
		}
		if _, err := os.Stat(filepath.Join(work, "pwned")); err == nil {
			t.Error("the message's $( ) ran as a command")
		}
	}
}

// docs/ci.md's GitLab pipelines are YAML, include the template at a
// release's tag with that version, and their script lines pass shellcheck.
func TestCIDocGitLabPipelines(t *testing.T) {
	_, gitlab := ciDocBlocks(t)
	if len(gitlab) == 0 {
		t.Fatal("docs/ci.md has no GitLab pipeline")
	}
	for i, b := range gitlab {
		if strings.Contains(b, "go install") || strings.Contains(b, "@latest") {
			t.Errorf("docs/ci.md's GitLab pipeline %d installs unpinned:\n%s", i+1, b)
		}
		path := filepath.Join(t.TempDir(), "pipeline.yml")
		if err := os.WriteFile(path, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
		doc := yamlDocs(t, path)[0].(map[string]any)
		includes, _ := doc["include"].([]any)
		if len(includes) != 1 {
			t.Fatalf("docs/ci.md's GitLab pipeline %d includes %v, want the template", i+1, doc["include"])
		}
		inc := includes[0].(map[string]any)
		m := regexp.MustCompile(`^https://raw\.githubusercontent\.com/ask-confirm/ask-confirm/(v\d+\.\d+\.\d+)/templates/ask-confirm\.yml$`).FindStringSubmatch(fmt.Sprint(inc["remote"]))
		if m == nil {
			t.Errorf("docs/ci.md's GitLab pipeline %d includes %v, not the template at a release's tag", i+1, inc["remote"])
		} else if v := inc["inputs"].(map[string]any)["version"]; v != m[1] {
			t.Errorf("docs/ci.md's GitLab pipeline %d includes the template at %s but installs %v", i+1, m[1], v)
		}
		jobs := 0
		for name, j := range doc {
			job, ok := j.(map[string]any)
			if !ok || name == "include" {
				continue
			}
			jobs++
			var script strings.Builder
			refs := 0
			for _, s := range job["script"].([]any) {
				switch s := s.(type) {
				case string:
					script.WriteString(s + "\n")
				case map[string]any:
					if fmt.Sprint(s["!reference"]) != "[.ask-confirm script]" {
						t.Errorf("docs/ci.md's job %s references %v", name, s)
					}
					refs++
				}
			}
			if refs != 1 || job["extends"] != ".ask-confirm" {
				t.Errorf("docs/ci.md's job %s does not extend .ask-confirm and run its script", name)
			}
			if out := shellcheck(t, "sh", script.String()); out != "" {
				t.Errorf("shellcheck on docs/ci.md's job %s:\n%s", name, out)
			}
		}
		if jobs == 0 {
			t.Errorf("docs/ci.md's GitLab pipeline %d has no job", i+1)
		}
	}
}
