// Package helpexample reads the examples of the programs' --help (a cobra
// command's Example), for the tests that run them against the programs:
// the JSON a host is given, and the command lines a person would type.
package helpexample

import (
	"encoding/json"
	"fmt"
	"strings"
)

// JSON returns each JSON object in example: a run of lines from one that
// starts with "{" to the line that closes it. It returns an error for
// such a run that does not parse.
func JSON(example string) ([]map[string]any, error) {
	var objects []map[string]any
	var run []string
	depth := 0
	for _, line := range strings.Split(example, "\n") {
		t := strings.TrimSpace(line)
		if depth == 0 && !strings.HasPrefix(t, "{") {
			continue
		}
		run = append(run, t)
		depth += strings.Count(t, "{") - strings.Count(t, "}")
		if depth > 0 {
			continue
		}
		var o map[string]any
		if err := json.Unmarshal([]byte(strings.Join(run, "\n")), &o); err != nil {
			return nil, fmt.Errorf("%q: %w", strings.Join(run, "\n"), err)
		}
		objects, run, depth = append(objects, o), nil, 0
	}
	if depth != 0 {
		return nil, fmt.Errorf("unclosed JSON: %q", strings.Join(run, "\n"))
	}
	return objects, nil
}

// Commands returns the arguments of each invocation of program in
// example's shell lines, as the shell splits them: the words after the
// program's name, up to the end of the line, a ")" that closes a command
// substitution, or a "&&", "||", ";" or "|".
func Commands(example, program string) ([][]string, error) {
	var commands [][]string
	for _, line := range strings.Split(example, "\n") {
		words, err := split(line)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", line, err)
		}
		for i := 0; i < len(words); i++ {
			if words[i].text != program || words[i].quoted {
				continue
			}
			var args []string
			for i++; i < len(words) && !words[i].operator; i++ {
				args = append(args, words[i].text)
			}
			commands = append(commands, args)
		}
	}
	return commands, nil
}

// word is a shell word, or an operator that ends a command.
type word struct {
	text             string
	quoted, operator bool
}

// split splits line as a POSIX shell splits a simple line: blanks between
// words, '...' and "..." quoting (with \" and \\ inside double quotes),
// and "$(" and ")" , "&&", "||", ";" and "|" as operators.
func split(line string) ([]word, error) {
	var words []word
	var cur strings.Builder
	inWord, quoted := false, false
	flush := func() {
		if inWord {
			words = append(words, word{text: cur.String(), quoted: quoted})
		}
		cur.Reset()
		inWord, quoted = false, false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unclosed '")
			}
			cur.WriteString(line[i+1 : i+1+end])
			inWord, quoted = true, true
			i += end + 1
		case c == '"':
			inWord, quoted = true, true
			for i++; ; i++ {
				if i >= len(line) {
					return nil, fmt.Errorf(`unclosed "`)
				}
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte(`"\$`+"`", line[i+1]) >= 0 {
					i++
				} else if line[i] == '"' {
					break
				}
				cur.WriteByte(line[i])
			}
		case strings.HasPrefix(line[i:], "$("):
			flush()
			words = append(words, word{text: "$(", operator: true})
			i++
		case strings.HasPrefix(line[i:], "&&"), strings.HasPrefix(line[i:], "||"):
			flush()
			words = append(words, word{text: line[i : i+2], operator: true})
			i++
		case c == ')' || c == ';' || c == '|':
			flush()
			words = append(words, word{text: string(c), operator: true})
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, nil
}
