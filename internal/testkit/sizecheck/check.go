package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// limits are the sizes a file or function may reach without being reported.
type limits struct {
	maxBytes     int64
	maxFileLines int
	maxFuncLines int
}

// defaultLimits are the project's: 1 MB a file, 350 lines a Go file and 80
// a Go function.
func defaultLimits() limits {
	return limits{maxBytes: 1_000_000, maxFileLines: 350, maxFuncLines: 80}
}

// check reads each of paths, relative to root, and returns one line for
// each limit exceeded, naming the file (and function) that exceeds it.
func check(root string, paths []string, lim limits) ([]string, error) {
	var findings []string
	for _, p := range paths {
		full := filepath.Join(root, p)
		info, err := os.Lstat(full)
		if errors.Is(err, fs.ErrNotExist) {
			continue // tracked but deleted in the work tree: nothing to commit
		}
		if err != nil {
			return nil, err
		}
		if !info.Mode().IsRegular() {
			continue // a symbolic link or a submodule holds no bytes of its own
		}
		if info.Size() > lim.maxBytes {
			findings = append(findings, fmt.Sprintf("%s: %d bytes, over %d", p, info.Size(), lim.maxBytes))
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(full)
		if err != nil {
			return nil, err
		}
		found, err := checkGo(p, src, lim)
		if err != nil {
			return nil, err
		}
		findings = append(findings, found...)
	}
	return findings, nil
}

// checkGo reports a Go source file longer than the limit and each of its
// functions longer than theirs, the signature and closing brace included.
func checkGo(name string, src []byte, lim limits) ([]string, error) {
	var findings []string
	if n := lineCount(src); n > lim.maxFileLines {
		findings = append(findings, fmt.Sprintf("%s: %d lines, over %d", name, n, lim.maxFileLines))
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", name, err)
	}
	report := func(what string, node ast.Node) {
		start, end := fset.Position(node.Pos()), fset.Position(node.End())
		if n := end.Line - start.Line + 1; n > lim.maxFuncLines {
			findings = append(findings, fmt.Sprintf("%s:%d: %s is %d lines, over %d", name, start.Line, what, n, lim.maxFuncLines))
		}
	}
	for _, decl := range file.Decls {
		if fd, ok := decl.(*ast.FuncDecl); ok {
			report("func "+funcName(fd), fd)
			continue
		}
		// A function literal at package level, as a variable's value, is
		// a function all the same; those inside a function count toward it.
		ast.Inspect(decl, func(n ast.Node) bool {
			if lit, ok := n.(*ast.FuncLit); ok {
				report("func literal", lit)
				return false
			}
			return true
		})
	}
	return findings, nil
}

// funcName names a function as a reader searches for it: Name, or
// (*Recv).Name or (Recv).Name for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	return "(" + typeName(fd.Recv.List[0].Type) + ")." + fd.Name.Name
}

// typeName is the name of a receiver's type, without its type parameters.
func typeName(expr ast.Expr) string {
	switch t := expr.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return "*" + typeName(t.X)
	case *ast.IndexExpr:
		return typeName(t.X)
	case *ast.IndexListExpr:
		return typeName(t.X)
	case *ast.ParenExpr:
		return typeName(t.X)
	}
	return "?"
}

// lineCount counts lines as wc -l does, and a last line without its
// newline as one more.
func lineCount(src []byte) int {
	n := bytes.Count(src, []byte("\n"))
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}
