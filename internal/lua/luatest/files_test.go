package luatest

import (
	"crypto/sha1"
	"encoding/hex"
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/goredisson/redisson/internal/lua"
)

// root is the module's directory, seen from this package's.
const root = "../../.."

// TestGoldenFiles: every script file composes to the text golden lists
// for it, its header says what golden says it is (Redisson's text or
// ours), and every .lua file beside them is a listed script or a fragment.
func TestGoldenFiles(t *testing.T) {
	entries, err := Golden()
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, e := range entries {
		listed[path.Join(e.Package, "lua", e.File)] = true
		pkg := os.DirFS(path.Join(root, e.Package))
		text, err := lua.Text(pkg, path.Join("lua", e.File))
		if err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		if sum := sha1.Sum([]byte(text)); hex.EncodeToString(sum[:]) != e.SHA1 {
			t.Errorf("%s/lua/%s composes to SHA1 %x, golden %s", e.Package, e.File, sum, e.SHA1)
		}
		raw, err := fs.ReadFile(pkg, path.Join("lua", e.File))
		if err != nil {
			t.Fatal(err)
		}
		want := "-- Redisson "
		if e.Origin == "ours" {
			want = "-- ours: "
		}
		if !strings.HasPrefix(string(raw), want) {
			t.Errorf("%s/lua/%s: golden says %s, its header does not start with %q", e.Package, e.File, e.Origin, want)
		}
	}
	for dir := range packages(entries) {
		files, err := fs.Glob(os.DirFS(root), path.Join(dir, "lua", "*.lua"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if !listed[f] {
				t.Errorf("%s is no script scripts.golden lists (a fragment goes in lua/fragments)", f)
			}
		}
	}
}

func packages(entries []Entry) map[string]bool {
	out := map[string]bool{}
	for _, e := range entries {
		out[e.Package] = true
	}
	return out
}
