package releasetest_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson"
	"github.com/goredisson/redisson/internal/releasetest"
)

// repoRoot is the repository's root, from this package's directory.
const repoRoot = "../.."

// published are the modules a user fetches (directory, module path): the
// ones the outside module imports.
var published = [][2]string{
	{".", "github.com/goredisson/redisson"},
	{"extra/redissonotel", "github.com/goredisson/redisson/extra/redissonotel"},
}

// documented are the public packages the issue that made this test names;
// publicPackages must find each of them.
var documented = []string{
	"rlock", "fairlock", "rwlock", "fencedlock", "semaphore", "latch", "ratelimit", "multilock",
	"value", "collection", "queue", "pubsub", "codec", "observe", "locks", "source", "keys", "errs", "lockable",
}

// TestConsumer packs the working tree's modules at the release version
// (redisson.Version) into a module proxy on disk and builds, vets and runs
// a module outside the repository that imports the root package, every
// public package and extra/redissonotel, as a user's would: no go.work, no
// replace, GOFLAGS=-mod=mod, the checksum database off; third-party modules
// come from the local module cache or the usual proxy. The module cache is
// emptied first, so a version packed by an earlier run is never reused, and
// the user's own never holds a packed version.
func TestConsumer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an outside module (-short)")
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	version := "v" + redisson.Version
	proxy := t.TempDir()
	for _, m := range published {
		if err := releasetest.Pack(proxy, filepath.Join(root, m[0]), m[1], version); err != nil {
			t.Fatal(err)
		}
	}
	pkgs := publicPackages(t, root)
	for _, p := range documented {
		if !slices.Contains(pkgs, "github.com/goredisson/redisson/"+p) {
			t.Errorf("public package %s not found among %v", p, pkgs)
		}
	}

	consumer := t.TempDir()
	writeConsumer(t, consumer, version, pkgs)
	env := consumerEnv(t, proxy, modCache(t, root))
	goCmd(t, consumer, env, "build", "./...")
	goCmd(t, consumer, env, "vet", "./...")
	goCmd(t, consumer, env, "build", "-o", filepath.Join(consumer, "consumer.bin"), ".")
	out, err := exec.Command(filepath.Join(consumer, "consumer.bin")).CombinedOutput()
	if err != nil {
		t.Fatalf("the consumer: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != redisson.Version {
		t.Errorf("the consumer says redisson.Version is %q, want %q (the packed working tree's)", got, redisson.Version)
	}
	// The build resolved the packed versions, without replace.
	list := goCmd(t, consumer, env, "list", "-m", "all")
	for _, m := range published {
		if !strings.Contains(list, "\n"+m[1]+" "+version+"\n") {
			t.Errorf("go list -m all lacks %s %s:\n%s", m[1], version, list)
		}
	}
	if strings.Contains(list, "=>") {
		t.Errorf("a replacement in the consumer's build list:\n%s", list)
	}
}

// publicPackages lists the importable packages of the main module: not
// internal, not commands.
func publicPackages(t *testing.T, root string) []string {
	t.Helper()
	out := goCmd(t, root, nil, "list", "-e", "-f", `{{if and (ne .Name "main") .GoFiles}}{{.ImportPath}}{{end}}`, "./...")
	var pkgs []string
	for _, p := range strings.Fields(out) {
		if !strings.Contains(p+"/", "/internal/") {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs
}

// writeConsumer writes the outside module: a main package that imports
// pkgs and extra/redissonotel, makes an observer and prints
// redisson.Version.
func writeConsumer(t *testing.T, dir, version string, pkgs []string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("module example.com/consumer\n\ngo 1.26.0\n\nrequire (\n")
	for _, m := range published {
		b.WriteString("\t" + m[1] + " " + version + "\n")
	}
	b.WriteString(")\n")
	write(t, filepath.Join(dir, "go.mod"), b.String())

	b.Reset()
	b.WriteString("// Command consumer uses github.com/goredisson/redisson as a user would.\npackage main\n\nimport (\n\t\"fmt\"\n\t\"log\"\n\n")
	b.WriteString("\t\"github.com/goredisson/redisson\"\n\t\"github.com/goredisson/redisson/extra/redissonotel\"\n")
	for _, p := range pkgs {
		if p != "github.com/goredisson/redisson" {
			b.WriteString("\t_ \"" + p + "\"\n")
		}
	}
	b.WriteString(")\n\nfunc main() {\n\tif _, err := redissonotel.NewObserver(); err != nil {\n\t\tlog.Fatal(err)\n\t}\n\tfmt.Println(redisson.Version)\n}\n")
	write(t, filepath.Join(dir, "main.go"), b.String())
}

// modCache returns the consumer's module cache, empty: a directory of its
// own for this repository, at the same path on every run, because the build
// cache keys a package on its directory: the third-party packages compiled
// by an earlier run are reused.
func modCache(t *testing.T, root string) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(base, "redisson-releasetest", hex.EncodeToString(sum[:6]), "modcache")
	// -modcacherw left every file writable, so a plain removal works.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatalf("emptying the consumer's module cache: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// consumerEnv is the environment of a user's build against proxy with the
// module cache modcache: the packed modules first, then the local module
// cache's downloads (the third-party modules, without the network when they
// are there), then the configured proxy.
func consumerEnv(t *testing.T, proxy, modcache string) []string {
	t.Helper()
	cache := strings.TrimSpace(goCmd(t, ".", nil, "env", "GOMODCACHE"))
	upstream := strings.TrimSpace(goCmd(t, ".", nil, "env", "GOPROXY"))
	proxies := "file://" + filepath.ToSlash(proxy)
	if dl := filepath.Join(cache, "cache", "download"); cache != "" && isDir(dl) {
		proxies += ",file://" + filepath.ToSlash(dl)
	}
	if upstream != "" {
		proxies += "," + upstream
	}
	// The go command indexes a module of the module cache once and keys the
	// index on the module's directory alone, since a version never changes
	// there. Here it does: every run packs the working tree at the same
	// version into the same directory, so an index left by an earlier run
	// lists the files of an older tree (a file added since is not compiled).
	// goindex=0 turns that index off.
	godebug := "goindex=0"
	if v := os.Getenv("GODEBUG"); v != "" {
		godebug = v + "," + godebug
	}
	return []string{
		"GOWORK=off", "GOFLAGS=-mod=mod -modcacherw", "GOSUMDB=off", "GONOSUMDB=", "GOPRIVATE=", "GONOPROXY=",
		"GOPROXY=" + proxies, "GOMODCACHE=" + modcache, "GOTOOLCHAIN=local", "GODEBUG=" + godebug,
	}
}

// goCmd runs the go command in dir with env added to the test's, failing
// the test with its output when it fails, and returns its output.
func goCmd(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	start := time.Now()
	defer func() { t.Logf("go %s: %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond)) }()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s%s", strings.Join(args, " "), dir, err, out, stderr.String())
	}
	return "\n" + string(out)
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
