// Package mdtable reads the tables of the project's Markdown documents, for
// the tests that hold each hand-written table of facts against the code
// that defines them.
package mdtable

import (
	"os"
	"strings"
)

// Rows returns the rows of the first table under the heading (the whole
// heading line, such as "### History events") in the Markdown file at
// path: each row's cells, trimmed, without the header and the rule. It
// returns an error when the file cannot be read, and no rows when the
// heading or its table is missing.
func Rows(path, heading string) ([][]string, error) {
	section, err := sectionOf(path, heading)
	if err != nil || section == "" {
		return nil, err
	}
	var rows [][]string
	inTable := false
	for _, line := range strings.Split(section, "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
			return rows, nil
		case strings.HasPrefix(line, "|"):
			if !inTable {
				inTable = true // the header row
				continue
			}
			cells := strings.Split(strings.Trim(line, "|"), "|")
			if strings.Trim(cells[0], "-: ") == "" {
				continue // the rule under the header
			}
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			rows = append(rows, cells)
		case inTable:
			return rows, nil
		}
	}
	return rows, nil
}

// Code returns the cell's text without its backticks: the value a
// first-column cell such as `approved` names.
func Code(cell string) string { return strings.Trim(cell, "`") }

// Names returns what the first cell of each row names (Code), in order.
func Names(rows [][]string) []string {
	names := make([]string, 0, len(rows))
	for _, row := range rows {
		names = append(names, Code(row[0]))
	}
	return names
}

// sectionOf returns what follows the heading line in the Markdown file at
// path, or "" when the heading is missing.
func sectionOf(path, heading string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	_, section, _ := strings.Cut(string(b), "\n"+heading+"\n")
	return section, nil
}
