package mdtable

import (
	"os"
	"strings"
)

// Header returns the header cells, trimmed, of the first table under the
// heading in the Markdown file at path (as Rows finds it), or none when
// the heading or its table is missing.
func Header(path, heading string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	_, section, found := strings.Cut(string(b), "\n"+heading+"\n")
	if !found {
		return nil, nil
	}
	for _, line := range strings.Split(section, "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
			return nil, nil
		case strings.HasPrefix(line, "|"):
			cells := strings.Split(strings.Trim(line, "|"), "|")
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			return cells, nil
		}
	}
	return nil, nil
}
