package adversarial

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// A seed names its corpus: the same seed gives the same cases, whatever
// the count, so a failure's seed reproduces it; another seed gives others.
func TestGenerateIsDeterministicForASeed(t *testing.T) {
	a, b := Generate(DefaultSeed, 20), Generate(DefaultSeed, 20)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two corpora of one seed differ")
	}
	if short := Generate(DefaultSeed, 5); !reflect.DeepEqual(short, a[:5]) {
		t.Fatal("the first 5 cases of a corpus of 20 are not the corpus of 5")
	}
	other := Generate(DefaultSeed+1, 20)
	same := 0
	for i := range a {
		if a[i].Command == other[i].Command {
			same++
		}
	}
	if same > 0 {
		t.Fatalf("%d of 20 cases are the same for two seeds", same)
	}
}

// Every case ends in its tail, which the rest of the command does not
// hold, so a tail word read on the screen is the command's end; and every
// case is valid UTF-8, as a JSON payload carries it.
func TestEveryCaseEndsWithItsTail(t *testing.T) {
	for seed := range uint64(40) {
		for _, c := range append(Generate(seed, 2*len(families)), IssueCases()...) {
			if !strings.HasSuffix(c.Command, " rm -rf ~/"+c.Tail) && !strings.HasSuffix(c.Command, "\nrm -rf ~/"+c.Tail) {
				t.Fatalf("seed %d, case %s ends %q, not in its tail %q", seed, c.Name, c.Command[max(0, len(c.Command)-40):], c.Tail)
			}
			if n := strings.Count(c.Command, c.Tail); n != 1 {
				t.Fatalf("seed %d, case %s holds its tail %q %d times", seed, c.Name, c.Tail, n)
			}
			if !utf8.ValidString(c.Command) {
				t.Fatalf("seed %d, case %s is not valid UTF-8", seed, c.Name)
			}
		}
	}
}

// A tail word must read as itself: no word holds another, and none holds
// the letters OCR takes for others.
func TestTailsReadAsThemselves(t *testing.T) {
	for i, a := range tails {
		if strings.ContainsAny(a, "ilo01") || strings.Contains(a, "rn") || a != strings.ToLower(a) {
			t.Errorf("tail %q holds letters OCR confuses", a)
		}
		for j, b := range tails {
			if i != j && strings.Contains(a, b) {
				t.Errorf("tail %q holds tail %q", a, b)
			}
		}
	}
}

// The families take turns, so a run of DefaultCases tries every one; the
// limits' families land on both sides of their limit over a few seeds; and
// the big family is 100 KB.
func TestFamiliesTakeTurnsAndProbeBothSides(t *testing.T) {
	if DefaultCases < len(families) {
		t.Fatalf("a default run tries %d cases of %d families", DefaultCases, len(families))
	}
	if families[len(families)-1].name != "huge" {
		t.Fatal("huge, which mixes the others, must be the last family")
	}
	seen := map[string]bool{}
	for _, c := range Generate(DefaultSeed, DefaultCases) {
		seen[c.Family] = true
	}
	for _, f := range Families() {
		if !seen[f] {
			t.Errorf("a default run does not try the family %s", f)
		}
	}
	lines := map[bool]bool{}
	bytes := map[bool]bool{}
	for seed := range uint64(200) {
		for _, c := range Generate(seed, len(families)) {
			switch c.Family {
			case "lines":
				lines[strings.Count(c.Command, "\n")+1 > limitLines] = true
			case "bytes":
				bytes[len(c.Command) > limitBytes] = true
			case "huge":
				if len(c.Command) < hugeBytes {
					t.Fatalf("seed %d: the huge case is %d bytes", seed, len(c.Command))
				}
			}
		}
	}
	if !lines[true] || !lines[false] || !bytes[true] || !bytes[false] {
		t.Fatalf("200 seeds did not land on both sides of the limits: lines over/under %v, bytes over/under %v", lines, bytes)
	}
}

// The issue's cases are the report's shapes, the command-line one among
// them plain enough for --message.
func TestIssueCases(t *testing.T) {
	cs := IssueCases()
	if len(cs) != 6 {
		t.Fatalf("%d issue cases, want the report's 6", len(cs))
	}
	if !strings.HasPrefix(cs[3].Command, "ls "+strings.Repeat("A", 3000)+" ;") || !cs[5].Plain() {
		t.Fatalf("the long-A cases are not the report's: %q…", cs[3].Command[:10])
	}
	if got := strings.Count(cs[1].Command, "\n"); got != 999 {
		t.Fatalf("the 1,000-line case has %d line breaks", got)
	}
}

func TestPlain(t *testing.T) {
	for _, c := range []struct {
		command string
		plain   bool
	}{
		{"ls\n\t\u200b ; rm -rf ~/x", true},
		{"ls\r\n", false},
		{"ls \x1b[31m", false},
		{"ls \u202e", false},
		{"ls \u0085", false},
		{strings.Repeat("a", 64<<10+1), false},
	} {
		if got := (Case{Command: c.command}).Plain(); got != c.plain {
			t.Errorf("Plain(%q) = %v", c.command[:min(len(c.command), 20)], got)
		}
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv(SeedEnv, "")
	t.Setenv(CasesEnv, "")
	if seed, n, err := FromEnv(); seed != DefaultSeed || n != DefaultCases || err != nil {
		t.Fatalf("FromEnv() = %d, %d, %v with nothing set", seed, n, err)
	}
	t.Setenv(SeedEnv, "42")
	t.Setenv(CasesEnv, "3")
	if seed, n, err := FromEnv(); seed != 42 || n != 3 || err != nil {
		t.Fatalf("FromEnv() = %d, %d, %v", seed, n, err)
	}
	t.Setenv(CasesEnv, "many")
	if _, _, err := FromEnv(); err == nil {
		t.Fatal("a count that is not a number was taken")
	}
}

// Every invisible character is tried, over a few seeds, both as a run
// within a line and as lines of its own.
func TestEveryInvisibleIsTriedBothWays(t *testing.T) {
	tried := map[string]bool{}
	for seed := range uint64(100) {
		for _, c := range Generate(seed, len(families)) {
			if c.Family != "invisible-run" && c.Family != "invisible-lines" {
				continue
			}
			for _, r := range Invisibles {
				if strings.ContainsRune(c.Command, r) {
					tried[fmt.Sprintf("%s U+%04X", c.Family, r)] = true
				}
			}
		}
	}
	for _, family := range []string{"invisible-run", "invisible-lines"} {
		for _, r := range Invisibles {
			if name := fmt.Sprintf("%s U+%04X", family, r); !tried[name] {
				t.Errorf("100 seeds never tried %s", name)
			}
		}
	}
}
