// Package releasetest tests the release of github.com/goredisson/redisson:
// scripts/release.sh run on a temporary repository, and the modules as a
// user fetches them, packed from the working tree into a module proxy on
// disk (GOPROXY=file://...) and built from a module outside the repository
// without any replace.
package releasetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// Pack adds module modPath at version, made of the files of the module in
// dir, to the file-system module proxy rooted at proxy: the list, .info,
// .mod and .zip files the GOPROXY protocol serves. The files are those Git
// sees in dir, tracked or untracked but not ignored (so a build's leftovers
// stay out), minus the nested modules, as the go command's zip has them;
// outside a Git work tree, every file of dir.
func Pack(proxy, dir, modPath, version string) error {
	escPath, err := module.EscapePath(modPath)
	if err != nil {
		return err
	}
	escVersion, err := module.EscapeVersion(version)
	if err != nil {
		return err
	}
	at := filepath.Join(proxy, filepath.FromSlash(escPath), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return err
	}
	var z bytes.Buffer
	m := module.Version{Path: modPath, Version: version}
	if files, ok := gitFiles(dir); ok {
		err = zip.Create(&z, m, files)
	} else {
		err = zip.CreateFromDir(&z, m, dir)
	}
	if err != nil {
		return fmt.Errorf("pack %s@%s: %w", modPath, version, err)
	}
	for name, data := range map[string][]byte{
		"list":               []byte(version + "\n"),
		escVersion + ".info": info,
		escVersion + ".mod":  mod,
		escVersion + ".zip":  z.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// gitFiles lists the files of dir that Git tracks or would add (untracked
// but not ignored) and that exist; false when Git cannot tell.
func gitFiles(dir string) ([]zip.File, bool) {
	out, err := exec.Command("git", "-C", dir, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ".").Output()
	if err != nil {
		return nil, false
	}
	var files []zip.File
	for _, rel := range strings.Split(string(out), "\x00") {
		if rel == "" {
			continue
		}
		full := filepath.Join(dir, filepath.FromSlash(rel))
		info, err := os.Lstat(full)
		if err != nil {
			continue // tracked but deleted in the work tree
		}
		files = append(files, diskFile{rel: rel, full: full, info: info})
	}
	return files, true
}

// diskFile is a file of the work tree as zip.Create reads it.
type diskFile struct {
	rel, full string
	info      os.FileInfo
}

func (f diskFile) Path() string                 { return f.rel }
func (f diskFile) Lstat() (os.FileInfo, error)  { return f.info, nil }
func (f diskFile) Open() (io.ReadCloser, error) { return os.Open(f.full) }
