package releasetest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"

	"github.com/goredisson/redisson"
)

// newVersion is the version the tests release: any valid one that is not
// the current.
const newVersion = "0.99.0"

// scriptRepo makes a Git repository of the files scripts/release.sh reads
// and edits, as the working tree has them (the script included), committed
// on one branch: every go.mod, go.work, version.go and CHANGELOG.md.
func scriptRepo(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-co", "--exclude-standard", "--",
		"go.mod", "*/go.mod", "go.work", "version.go", "CHANGELOG.md", "scripts/release.sh").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dir := t.TempDir()
	for _, rel := range strings.Fields(string(out)) {
		if strings.Contains(rel, "/testdata/") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "fixture")
	return dir
}

// gitEnv keeps the user's Git configuration (signing, hooks) out of the
// temporary repositories and names an author.
var gitEnv = []string{
	"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
	"GIT_AUTHOR_NAME=release test", "GIT_AUTHOR_EMAIL=release@example.com",
	"GIT_COMMITTER_NAME=release test", "GIT_COMMITTER_EMAIL=release@example.com",
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// release runs the script in dir with checks as $RELEASE_CHECKS.
func release(t *testing.T, dir, checks string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"scripts/release.sh"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv...)
	cmd.Env = append(cmd.Env, "RELEASE_CHECKS="+checks, "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// unchanged fails the test when the script left a change, a commit or a
// tag in dir.
func unchanged(t *testing.T, dir, head string) {
	t.Helper()
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("the tree changed:\n%s", st)
	}
	if h := git(t, dir, "rev-parse", "HEAD"); h != head {
		t.Errorf("HEAD moved from %s to %s", head, h)
	}
	if tags := git(t, dir, "tag", "--list", "*v"+newVersion); tags != "" {
		t.Errorf("tags made: %s", tags)
	}
}

// TestReleaseRefuses: a malformed version, a dirty tree, an existing tag
// or changelog section, an empty Unreleased section and failing checks
// change nothing.
func TestReleaseRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T, dir string)
		args   []string
		checks string
		want   string
	}{
		{name: "two numbers", args: []string{"1.2"}, want: "malformed version"},
		{name: "four numbers", args: []string{"v1.2.3.4"}, want: "malformed version"},
		{name: "leading zero", args: []string{"01.2.3"}, want: "malformed version"},
		{name: "build metadata", args: []string{"1.2.3+build.5"}, want: "malformed version"},
		{name: "a word", args: []string{"latest"}, want: "malformed version"},
		{name: "no version", want: "a VERSION is required"},
		{name: "two versions", args: []string{"1.2.3", "1.2.4"}, want: "one VERSION expected"},
		{name: "unknown flag", args: []string{"--force", newVersion}, want: "unknown flag"},
		{name: "untracked file", args: []string{newVersion}, want: "not clean", setup: func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "notes.txt"), "x")
		}},
		{name: "changed file", args: []string{newVersion}, want: "not clean", setup: func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "version.go"), "package redisson\n")
		}},
		{name: "tag exists", args: []string{"v" + newVersion}, want: "tag extra/redissonotel/v" + newVersion + " exists", setup: func(t *testing.T, dir string) {
			git(t, dir, "tag", "extra/redissonotel/v"+newVersion)
		}},
		{name: "changelog has it", args: []string{newVersion}, want: "has a section for " + newVersion, setup: func(t *testing.T, dir string) {
			changelog(t, dir, "## [Unreleased]\n\n### Added\n\n- x\n\n## ["+newVersion+"] - 2026-01-01\n")
		}},
		{name: "nothing unreleased", args: []string{newVersion}, want: "Unreleased section is empty", setup: func(t *testing.T, dir string) {
			changelog(t, dir, "# Changelog\n\n## [Unreleased]\n\n## [0.1.0] - 2026-01-01\n\n- x\n")
		}},
		{name: "checks fail", args: []string{newVersion}, checks: "exit 3", want: "the checks failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := scriptRepo(t)
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			head := git(t, dir, "rev-parse", "HEAD")
			before := git(t, dir, "status", "--porcelain")
			checks := tc.checks
			if checks == "" {
				checks = "true"
			}
			out, err := release(t, dir, checks, tc.args...)
			if err == nil || !strings.Contains(out, tc.want) {
				t.Fatalf("want a failure saying %q, got %v:\n%s", tc.want, err, out)
			}
			if h := git(t, dir, "rev-parse", "HEAD"); h != head {
				t.Errorf("HEAD moved")
			}
			if tc.checks == "" {
				// Refused before any edit.
				if st := git(t, dir, "status", "--porcelain"); st != before {
					t.Errorf("the tree changed from\n%s\nto\n%s", before, st)
				}
			}
			if tags := git(t, dir, "tag", "--list", "v*"); tags != "" {
				t.Errorf("tags made: %s", tags)
			}
		})
	}
}

// changelog commits text as CHANGELOG.md.
func changelog(t *testing.T, dir, text string) {
	t.Helper()
	write(t, filepath.Join(dir, "CHANGELOG.md"), text)
	git(t, dir, "commit", "-q", "-am", "changelog")
}

// TestReleaseDryRun shows the edits and the tags and leaves nothing.
func TestReleaseDryRun(t *testing.T) {
	dir := scriptRepo(t)
	head := git(t, dir, "rev-parse", "HEAD")
	marker := filepath.Join(t.TempDir(), "checks-ran")
	out, err := release(t, dir, "touch "+marker, "--dry-run", newVersion)
	if err != nil {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	for _, want := range []string{
		`+const Version = "` + newVersion + `"`,
		"+\tgithub.com/goredisson/redisson v" + newVersion,
		"+## [" + newVersion + "] - ",
		"  v" + newVersion + "\n",
		"  extra/redissonotel/v" + newVersion + "\n",
		"edits undone",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the dry run's output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the dry run ran the checks")
	}
	unchanged(t, dir, head)
}

// TestRelease sets the version everywhere, runs the checks on the edited
// tree, commits and tags every module.
func TestRelease(t *testing.T) {
	dir := scriptRepo(t)
	marker := filepath.Join(t.TempDir(), "checks-ran")
	// The checks see the edited tree.
	checks := `grep -qx 'const Version = "` + newVersion + `"' version.go && touch ` + marker
	out, err := release(t, dir, checks, "v"+newVersion)
	if err != nil {
		t.Fatalf("release: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the checks did not run on the edited tree:\n%s", out)
	}
	if st := git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("left uncommitted:\n%s", st)
	}
	if subj := git(t, dir, "log", "-1", "--format=%s"); subj != "release: v"+newVersion {
		t.Errorf("commit %q", subj)
	}
	if v, err := os.ReadFile(filepath.Join(dir, "version.go")); err != nil || !strings.Contains(string(v), `const Version = "`+newVersion+`"`) {
		t.Errorf("version.go: %s %v", v, err)
	}
	if c, err := os.ReadFile(filepath.Join(dir, "CHANGELOG.md")); err != nil || !strings.Contains(string(c), "## [Unreleased]\n\n## ["+newVersion+"] - ") {
		t.Errorf("CHANGELOG.md: no section for %s under an empty Unreleased (%v)", newVersion, err)
	}
	checkModules(t, dir)
	head := git(t, dir, "rev-parse", "HEAD")
	for _, mod := range strings.Fields(git(t, dir, "ls-files", "--", "*/go.mod")) {
		tag := strings.TrimSuffix(mod, "go.mod") + "v" + newVersion
		if c := git(t, dir, "rev-list", "-n", "1", tag); c != head {
			t.Errorf("tag %s at %s, want the release commit %s", tag, c, head)
		}
	}
	if c := git(t, dir, "rev-list", "-n", "1", "v"+newVersion); c != head {
		t.Errorf("tag v%s at %s, want %s", newVersion, c, head)
	}
	if redisson.Version == newVersion {
		t.Errorf("newVersion %s is the current version: pick another", newVersion)
	}
}

// checkModules: every requirement on a module of the repository and every
// go.work replacement of one is at newVersion, and no go.mod replaces.
func checkModules(t *testing.T, dir string) {
	t.Helper()
	paths := map[string]bool{}
	files := map[string]*modfile.File{}
	for _, mod := range strings.Fields(git(t, dir, "ls-files", "--", "go.mod", "*/go.mod")) {
		data, err := os.ReadFile(filepath.Join(dir, mod))
		if err != nil {
			t.Fatal(err)
		}
		f, err := modfile.Parse(mod, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		paths[f.Module.Mod.Path], files[mod] = true, f
	}
	required := 0
	for name, f := range files {
		if len(f.Replace) > 0 {
			t.Errorf("%s replaces %v", name, f.Replace)
		}
		for _, r := range f.Require {
			if paths[r.Mod.Path] {
				required++
				if r.Mod.Version != "v"+newVersion {
					t.Errorf("%s requires %s", name, r.Mod)
				}
			}
		}
	}
	if required < 4 {
		t.Errorf("only %d requirements on the repository's modules", required)
	}
	data, err := os.ReadFile(filepath.Join(dir, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := modfile.ParseWork("go.work", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range w.Replace {
		if paths[r.Old.Path] && r.Old.Version != "v"+newVersion {
			t.Errorf("go.work replaces %s", r.Old)
		}
	}
}
