//go:build release

package releasetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// readmeInstallRows are the README's install table's rows: channel to
// command, each with what it says the channel installs.
func readmeInstallRows(t *testing.T) map[string][2]string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Install\n")
	if !ok {
		t.Fatal("README.md has no Install section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string][2]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) == 3 && strings.HasPrefix(line, "| ") {
			rows[strings.TrimSpace(cells[0])] = [2]string{strings.TrimSpace(cells[1]), strings.TrimSpace(cells[2])}
		}
	}
	return rows
}

// The README's Windows lines run in the shell Windows ships, Windows
// PowerShell 5.1, which has no && or ||: a line of several commands
// separates them with ;. Each row says what its channel installs, and
// Scoop's and winget's that they set up nothing but the programs.
func TestREADMEInstallRowsSayWhatEachChannelInstalls(t *testing.T) {
	rows := readmeInstallRows(t)
	for _, channel := range []string{"Homebrew (macOS, Linux)", "Scoop (Windows)", "winget (Windows)", "Debian, Ubuntu",
		"Fedora, RHEL", "Alpine", "Go toolchain", "CI job"} {
		row, ok := rows[channel]
		if !ok {
			t.Errorf("the README's install table has no row %q: %v", channel, rows)
			continue
		}
		if row[1] == "" {
			t.Errorf("the README's %s row does not say what it installs", channel)
		}
	}
	for _, channel := range []string{"Scoop (Windows)", "winget (Windows)"} {
		cmd := strings.Trim(rows[channel][0], "`")
		if strings.Contains(cmd, "&&") || strings.Contains(cmd, "||") {
			t.Errorf("the README's %s line %q joins commands with && or ||, which Windows PowerShell 5.1 refuses", channel, cmd)
		}
		if !strings.Contains(rows[channel][1], "nothing else") {
			t.Errorf("the README's %s row does not say it sets up only the programs: %q", channel, rows[channel][1])
		}
	}
	if !strings.Contains(rows["Go toolchain"][1], "nothing else") {
		t.Errorf("the README's go install row does not say it installs the programs only: %q", rows["Go toolchain"][1])
	}
	if block := readmeBlock(t, "completion powershell"); strings.Contains(block, "&&") {
		t.Errorf("the README's PowerShell line joins commands with &&:\n%s", block)
	}
}

// The README's archive install, run as written for this machine's Linux
// archive, for a user whose ~/.local/bin is on PATH: the programs run,
// man ask-confirm finds its page, and bash-completion loads the
// completion from where the README put it and completes a flag.
func TestREADMEArchiveInstallPutsManPagesAndCompletionsWhereTheyAreFound(t *testing.T) {
	r := load(t)
	if runtime.GOOS != "linux" {
		t.Fatalf("the archive's install is run on Linux; this is %s", runtime.GOOS)
	}
	block := readmeBlock(t, "tar -xzf")
	script := strings.ReplaceAll(strings.ReplaceAll(block, "VERSION", r.version), "OS_ARCH", "linux_"+runtime.GOARCH)
	home, work := t.TempDir(), t.TempDir()
	run(t, "cp", filepath.Join(r.dir, r.archiveName("linux", runtime.GOARCH)), work)
	bin := filepath.Join(home, ".local/bin")
	var env []string
	for _, kv := range os.Environ() {
		// A user's own setting of these would hide where the README puts
		// the files.
		if !strings.HasPrefix(kv, "MANPATH=") && !strings.HasPrefix(kv, "XDG_DATA_HOME=") && !strings.HasPrefix(kv, "BASH_COMPLETION_USER_DIR=") {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home, "PATH="+bin+":"+os.Getenv("PATH"))
	c := exec.Command("sh", "-e", "-c", script)
	c.Dir, c.Env = work, env
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("the README's archive install: %v\n%s", err, out)
	}

	c = exec.Command("sh", "-c", "ask-confirm version")
	c.Env = env
	if out, err := c.Output(); err != nil || !strings.HasPrefix(string(out), "ask-confirm v"+r.version+" ") {
		t.Errorf("ask-confirm version from PATH after the README's install: %q, %v", out, err)
	}
	c = exec.Command("man", "-w", "ask-confirm")
	c.Env = env
	out, err := c.CombinedOutput()
	if want := filepath.Join(home, ".local/share/man/man1/ask-confirm.1"); err != nil || strings.TrimSpace(string(out)) != want {
		t.Errorf("man -w ask-confirm after the README's install says %q (%v), want %s", out, err, want)
	}
	script = `. /usr/share/bash-completion/bash_completion
__load_completion ask-confirm || { echo "no completion found for ask-confirm"; exit 1; }
COMP_LINE="ask-confirm --tim"; COMP_WORDS=(ask-confirm --tim); COMP_CWORD=1; COMP_POINT=${#COMP_LINE}
$(complete -p ask-confirm | sed 's/.* -F \([^ ]*\) .*/\1/') ask-confirm --tim ask-confirm 2>/dev/null
printf '%s\n' "${COMPREPLY[@]}"`
	c = exec.Command("bash", "-c", script)
	c.Env = env
	out, err = c.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "--timeout" {
		t.Errorf("bash completes ask-confirm --tim to %q (%v) after the README's install, want --timeout", out, err)
	}
}
