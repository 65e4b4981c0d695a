package cmd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ask-confirm/ask-confirm/internal/gosrc"
	"github.com/ask-confirm/ask-confirm/internal/mdtable"
)

// docs/scripting.md's table of --json fields names every field a Result
// prints, and no other.
func TestDocsJSONFieldsTable(t *testing.T) {
	rows, err := mdtable.Rows("../docs/scripting.md", "### JSON fields")
	if err != nil {
		t.Fatal(err)
	}
	got := mdtable.Names(rows)
	want := resultFields()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("docs/scripting.md lists the JSON fields %v; a Result prints %v", got, want)
	}
}

// The variables help environment names, and docs/trust-and-files.md's
// table, are the same list, and it holds every variable the shipped code
// reads: each name the production source hands to a getenv, directly or
// from a list in the same function, and those the libraries read for it.
func TestDocsEnvironmentTable(t *testing.T) {
	topic := environmentTopicNames()
	rows, err := mdtable.Rows("../docs/trust-and-files.md", "## Environment variables")
	if err != nil {
		t.Fatal(err)
	}
	table := mdtable.Names(rows)
	slices.Sort(table)
	if !slices.Equal(table, topic) {
		t.Errorf("docs/trust-and-files.md lists %v; help environment %v", table, topic)
	}
	read := append(getenvNames(t), libraryEnvironment...)
	for _, name := range read {
		if !slices.Contains(topic, name) {
			t.Errorf("the code reads %s, which help environment does not name", name)
		}
	}
	for _, name := range topic {
		if !slices.Contains(read, name) {
			t.Errorf("help environment names %s, which the code does not read", name)
		}
	}
}

// libraryEnvironment is what the libraries read on ask-confirm's behalf:
// github.com/adrg/xdg the base directories, exec.LookPath the dialog
// program's PATH.
var libraryEnvironment = []string{"XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "PATH"}

// envName is how a variable's name looks in a list of names in the code;
// topicName, in help environment's left column (SystemRoot too).
var (
	envName   = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)
	topicName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)
)

// environmentTopicNames are the variables in help environment's left column.
func environmentTopicNames() []string {
	var names []string
	for _, line := range strings.Split(topicEnvironment, "\n") {
		left, _, _ := strings.Cut(strings.TrimSpace(line), "  ")
		for _, f := range strings.Split(left, ",") {
			if f = strings.TrimSpace(f); topicName.MatchString(f) {
				names = append(names, f)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// getenvNames walks the module's production source (not its tests, not
// internal/ or scripts/) for the variables it reads: in every function
// that calls getenv, Getenv, LookupEnv or lookupEnv, the literal handed to the call,
// each string literal that looks like a variable's name, and each constant
// named ...Env.
func getenvNames(t *testing.T) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "internal" || d.Name() == "scripts" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		names = append(names, fileGetenvNames(t, path)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func fileGetenvNames(t *testing.T, path string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := packageConsts(t, filepath.Dir(path))
	var names []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		reads := false
		var literals []string
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if isGetenv(n.Fun) && len(n.Args) == 1 {
					reads = true
					if lit, ok := n.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, _ := strconv.Unquote(lit.Value)
						literals = append(literals, v)
					}
				}
			case *ast.Ident:
				// The project names a variable's constant ...Env.
				if strings.HasSuffix(n.Name, "Env") && consts[n.Name] != "" {
					literals = append(literals, consts[n.Name])
				}
			case *ast.BasicLit:
				if v, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && envName.MatchString(v) && len(v) > 1 {
					literals = append(literals, v)
				}
			}
			return true
		})
		if reads {
			names = append(names, literals...)
		}
	}
	return names
}

func isGetenv(fun ast.Expr) bool {
	var name string
	switch f := fun.(type) {
	case *ast.Ident:
		name = f.Name
	case *ast.SelectorExpr:
		name = f.Sel.Name
	}
	return name == "getenv" || name == "Getenv" || name == "LookupEnv" || name == "lookupEnv"
}

// packageConsts are the string constants of the package in dir, by name.
func packageConsts(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		consts, err := gosrc.StringConsts(file, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		maps.Copy(out, consts)
	}
	return out
}
