// Package gosrc reads facts from the project's Go source, for the tests
// that hold the documentation's tables against the code.
package gosrc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
)

// StringConsts returns the string constants that the Go file at path
// declares, by name: those given as a literal, or as string(pkg.Name) of a
// constant that outside names (another file's StringConsts). With typ,
// only those declared with that type.
func StringConsts(path string, outside map[string]string, typ string) (map[string]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); typ != "" && (!ok || id.Name != typ) {
				continue
			}
			for i, n := range vs.Names {
				if i >= len(vs.Values) {
					continue
				}
				switch v := vs.Values[i].(type) {
				case *ast.BasicLit:
					if v.Kind == token.STRING {
						out[n.Name], _ = strconv.Unquote(v.Value)
					}
				case *ast.CallExpr:
					if len(v.Args) != 1 {
						continue
					}
					if sel, ok := v.Args[0].(*ast.SelectorExpr); ok && outside[sel.Sel.Name] != "" {
						out[n.Name] = outside[sel.Sel.Name]
					}
				}
			}
		}
	}
	return out, nil
}

// FuncLines returns how many lines each function and method that the Go
// file at path declares spans, from func to its closing brace (its doc
// comment left out), by name: a method as Type.Name, a function as Name.
func FuncLines(path string) (map[string]int, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			t := fd.Recv.List[0].Type
			if star, ok := t.(*ast.StarExpr); ok {
				t = star.X
			}
			if id, ok := t.(*ast.Ident); ok {
				name = id.Name + "." + name
			}
		}
		out[name] = fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
	}
	return out, nil
}

// MaxFuncLines is the most lines a function of the product should span:
// one screen.
const MaxFuncLines = 60
