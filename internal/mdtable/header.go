package mdtable

import "strings"

// Header returns the header cells, trimmed, of the first table under the
// heading in the Markdown file at path (as Rows finds it), or none when
// the heading or its table is missing.
func Header(path, heading string) ([]string, error) {
	section, err := sectionOf(path, heading)
	if err != nil || section == "" {
		return nil, err
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
