package docsnippets

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// block is one ```go block of a Markdown file.
type block struct {
	line    int    // the line of its first line of code, from 1
	code    string // its lines, without the fences
	section string // the "##" heading it is under
}

// isFile says whether a block is a Go file of its own: its first line that
// is neither blank nor a comment is a package clause.
func (b block) isFile() bool {
	for _, l := range strings.Split(b.code, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		return strings.HasPrefix(l, "package ")
	}
	return false
}

// goBlocks returns the ```go blocks of a Markdown text, in order.
func goBlocks(md string) ([]block, error) {
	var (
		blocks  []block
		section string
		cur     *block
		indent  string
		fence   int // the line of the open fence, 0 when none is open
		lines   []string
	)
	sc := bufio.NewScanner(strings.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		if fence == 0 {
			switch {
			case strings.HasPrefix(line, "## "):
				section = strings.TrimPrefix(line, "## ")
			case strings.HasPrefix(trimmed, "```"):
				fence, indent = n, line[:len(line)-len(trimmed)]
				if strings.TrimSpace(strings.TrimPrefix(trimmed, "```")) == "go" {
					cur, lines = &block{line: n + 1, section: section}, nil
				}
			}
			continue
		}
		if strings.TrimSpace(line) == "```" {
			if cur != nil {
				cur.code = strings.Join(lines, "\n")
				blocks = append(blocks, *cur)
			}
			fence, cur = 0, nil
			continue
		}
		if cur != nil {
			lines = append(lines, strings.TrimPrefix(line, indent))
		}
	}
	if fence != 0 {
		return nil, fmt.Errorf("line %d: a code block that is never closed", fence)
	}
	return blocks, sc.Err()
}

// snippetFile is one Go file made of a file block and the fragments after
// it in its section.
type snippetFile struct {
	file      block
	fragments []block
}

// source is the file's text; //line directives make the compiler name the
// Markdown file's lines.
func (f snippetFile) source(mdName string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "//line %s:%d\n%s\n", mdName, f.file.line, f.file.code)
	for _, fr := range f.fragments {
		fmt.Fprintf(&b, "\nfunc _() error {\n//line %s:%d\n%s\n\treturn nil\n}\n", mdName, fr.line, fr.code)
	}
	return b.String()
}

// snippetFiles groups blocks into files: a fragment belongs to the last
// file block of its section.
func snippetFiles(mdName string, blocks []block) ([]snippetFile, error) {
	var files []snippetFile
	for _, b := range blocks {
		switch {
		case b.isFile():
			files = append(files, snippetFile{file: b})
		case len(files) == 0 || files[len(files)-1].file.section != b.section:
			return nil, fmt.Errorf("%s:%d: a Go fragment with no package block at the top of its section %q "+
				"(start the section with one, or fence the block as ```text)", mdName, b.line, b.section)
		default:
			files[len(files)-1].fragments = append(files[len(files)-1].fragments, b)
		}
	}
	return files, nil
}

// allowed are the compiler's complaints a fragment may cause: a snippet
// shows a part of the caller's code, which goes on to use what it declares.
var allowed = regexp.MustCompile(`: declared and not used: |" imported and not used$`)

// compile builds the files in a module of their own that requires this
// repository's module through a replace, and returns the compiler's
// complaints that are not tolerated.
func compile(t *testing.T, mdName string, files []snippetFile) []string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go [0-9.]+$`).Find(goMod)
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", fmt.Sprintf("module snippets\n\n%s\n\nrequire github.com/goredisson/redisson v0.0.0\n\nreplace github.com/goredisson/redisson => %s\n", goLine, root))
	// The main module's checksums: every dependency a snippet imports is one
	// of its own, already in the module cache.
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", string(sum))
	for i, f := range files {
		write(fmt.Sprintf("s%d/snippet.go", i+1), f.source(mdName))
	}
	// No -o: with an output directory go build skips the packages that are
	// not main.
	cmd := exec.Command("go", "build", "-gcflags=-e", "./...")
	cmd.Dir = dir
	// Offline: the module cache already holds what the main module needs.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "GOWORK=off", "GOPROXY=off", "GOSUMDB=off", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	var complaints []string
	tolerated := 0
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		switch {
		case l == "" || strings.HasPrefix(l, "# "): // the package's name
		case allowed.MatchString(l):
			tolerated++
		default:
			complaints = append(complaints, l)
		}
	}
	if err != nil && len(complaints) == 0 && tolerated == 0 {
		complaints = append(complaints, fmt.Sprintf("go build: %v\n%s", err, out))
	}
	return complaints
}

// documents are the Markdown files whose Go snippets must compile.
var documents = []string{"README.md"}

// TestSnippetsCompile: every ```go block of the documents compiles as it
// is written, under the convention of the package comment; a block that
// does not is reported at its line of the document.
func TestSnippetsCompile(t *testing.T) {
	t.Parallel()
	for _, name := range documents {
		md, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := goBlocks(string(md))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "README.md" && len(blocks) < 10 {
			t.Fatalf("README.md: %d ```go blocks, want the Quick start and the objects' snippets", len(blocks))
		}
		files, err := snippetFiles(name, blocks)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range compile(t, name, files) {
			t.Error(c)
		}
	}
}

// snippetDoc is a Markdown text for the tests of the test: line 8 is a
// fragment's unused variable, line 11 an undefined name, line 18 a fragment
// in a section without a package block.
const snippetDoc = "# doc\n" +
	"## One\n" +
	"```go\n" +
	"package app\n" +
	"```\n" +
	"Text, then a fragment.\n" +
	"```go\n" +
	"n := 1\n" +
	"```\n" +
	"```go\n" +
	"return undefinedName\n" +
	"```\n" +
	"```sh\nmake demo\n```\n" +
	"## Two\n" +
	"```go\n" +
	"n := 2\n" +
	"```\n"

// TestSnippetsNameTheirLine: the test's own machinery. Blocks are found
// with their lines and sections; a fragment with no package block in its
// section, an unclosed fence and a snippet that does not compile are each
// reported at the document's line; a variable a fragment leaves unused is
// not.
func TestSnippetsNameTheirLine(t *testing.T) {
	t.Parallel()
	blocks, err := goBlocks(snippetDoc)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range blocks {
		got = append(got, fmt.Sprintf("%d %s %v", b.line, b.section, b.isFile()))
	}
	if want := []string{"4 One true", "8 One false", "11 One false", "18 Two false"}; strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("blocks %q, want %q", got, want)
	}
	tests := []struct {
		name    string
		md      string
		wantErr string
	}{
		{name: "fragment without a package block", md: snippetDoc, wantErr: `doc.md:18: a Go fragment with no package block at the top of its section "Two"`},
		{name: "unclosed fence", md: "## A\n```go\npackage app\n", wantErr: "line 2: a code block that is never closed"},
	}
	for _, tc := range tests {
		blocks, err := goBlocks(tc.md)
		if err == nil {
			_, err = snippetFiles("doc.md", blocks)
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.wantErr)
		}
	}
	files, err := snippetFiles("doc.md", blocks[:3])
	if err != nil {
		t.Fatal(err)
	}
	complaints := compile(t, "doc.md", files)
	if len(complaints) != 1 || !strings.Contains(complaints[0], "doc.md:11") || !strings.Contains(complaints[0], "undefinedName") {
		t.Errorf("complaints %q: want one, at doc.md:11, about undefinedName", complaints)
	}
}
