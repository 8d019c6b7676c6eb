package luatest

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// recordFiles are the interop records that list the scripts Redisson sent
// (a "scripts" object, SHA1 -> text), in the repository's copies. The lock
// and synchroniser records list none: those scripts of ours are all our
// own text.
var recordFiles = []string{
	"../../vectors/testdata/collections.json",
	"../../vectors/testdata/redisson-4.7.0/collections.json",
	"../../vectors/testdata/topics.json",
	"../../vectors/testdata/redisson-4.7.0/topics.json",
	"../../vectors/testdata/localcachedmap.json",
	"../../vectors/testdata/redisson-4.7.0/localcachedmap.json",
	"../../../queue/testdata/delayedqueue.json",
	"../../../queue/testdata/redisson-4.7.0/delayedqueue.json",
	"../../vectors/testdata/mapcache.json",
	"../../vectors/testdata/redisson-4.7.0/mapcache.json",
}

// TestRedissonScriptsInRecords: every script golden calls Redisson's is,
// byte for byte, one both Redisson 3.52.0 and 4.7.0 sent in the records;
// one golden calls 4.7.0's is one 4.7.0 sent and 3.52.0 did not; no script
// golden calls ours, or Redisson's from the source, is in a record.
func TestRedissonScriptsInRecords(t *testing.T) {
	seen := map[string][]string{} // SHA1 -> the record files that list it
	in47 := map[string]bool{}     // SHA1 -> listed by a 4.7.0 record
	for _, f := range recordFiles {
		for sha := range recordScripts(t, f) {
			seen[sha] = append(seen[sha], filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f))
			if filepath.Base(filepath.Dir(f)) == "redisson-4.7.0" {
				in47[sha] = true
			}
		}
	}
	entries, err := Golden()
	if err != nil {
		t.Fatal(err)
	}
	matched := 0
	for _, e := range entries {
		files := seen[e.SHA1]
		switch {
		case e.Origin == "redisson" && len(files) < 2:
			t.Errorf("%s %q: SHA1 %s is in %q, want a 3.52.0 and a 4.7.0 record", e.Package, e.Name, e.SHA1, files)
		case e.Origin == "redisson-4.7" && (len(files) != 1 || !in47[e.SHA1]):
			t.Errorf("%s %q: SHA1 %s is in %q, want the 4.7.0 record only", e.Package, e.Name, e.SHA1, files)
		case (e.Origin == "ours" || e.Origin == "redisson-source") && len(files) > 0:
			t.Errorf("%s %q: golden says %s, but Redisson sent the same text (%q)", e.Package, e.Name, e.Origin, files)
		case e.Origin == "redisson":
			matched++
		}
	}
	t.Logf("%d of %d scripts are Redisson's, matched to the records", matched, len(entries))
}

// recordScripts reads the scripts of one record file, checking that each
// is listed under the SHA1 of its text.
func recordScripts(t *testing.T, file string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Scripts map[string]string `json:"scripts"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if len(rec.Scripts) == 0 {
		t.Fatalf("%s lists no scripts", file)
	}
	for sha, text := range rec.Scripts {
		sum := sha1.Sum([]byte(text))
		if hex.EncodeToString(sum[:]) != sha {
			t.Errorf("%s: script listed under %s has SHA1 %x", file, sha, sum)
		}
	}
	return rec.Scripts
}
