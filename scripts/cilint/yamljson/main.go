// Command yamljson prints the YAML documents of a file as one JSON array,
// for the tests of the CI recipes (ci_recipes_test.go at the repository's
// top), which read action.yml and the GitLab template with encoding/json
// and so keep a YAML library out of the product's module. A node with a
// tag YAML does not know, such as GitLab's !reference, becomes an object
// of that one tag: {"!reference": [...]}.
//
//	go -C scripts/cilint run ./yamljson FILE
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v4"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: yamljson FILE")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "yamljson: %v\n", err)
		os.Exit(1)
	}
}

func run(path string, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	docs := []any{}
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		v, err := value(&n)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		docs = append(docs, v)
	}
	return json.NewEncoder(w).Encode(docs)
}

// value is n as encoding/json's types: maps, slices, strings, numbers,
// booleans and nil.
func value(n *yaml.Node) (any, error) {
	var v any
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return value(n.Content[0])
	case yaml.AliasNode:
		return value(n.Alias)
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if k.Tag == "!!merge" {
				merged, err := value(val)
				if err != nil {
					return nil, err
				}
				mm, ok := merged.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("line %d: a merge of a non-mapping", k.Line)
				}
				for mk, mv := range mm {
					if _, set := m[mk]; !set {
						m[mk] = mv
					}
				}
				continue
			}
			x, err := value(val)
			if err != nil {
				return nil, err
			}
			m[k.Value] = x
		}
		v = m
	case yaml.SequenceNode:
		s := []any{}
		for _, c := range n.Content {
			x, err := value(c)
			if err != nil {
				return nil, err
			}
			s = append(s, x)
		}
		v = s
	case yaml.ScalarNode:
		if strings.HasPrefix(n.Tag, "!!") {
			if err := n.Decode(&v); err != nil {
				return nil, fmt.Errorf("line %d: %w", n.Line, err)
			}
		} else {
			v = n.Value
		}
	}
	if n.Tag != "" && !strings.HasPrefix(n.Tag, "!!") {
		return map[string]any{n.Tag: v}, nil
	}
	return v, nil
}
