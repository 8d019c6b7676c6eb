package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goredisson/redisson/internal/cli/cliflag"
	"github.com/goredisson/redisson/internal/redistest"
)

// TestMutualTLS: against a TLS-only redis-server that requires client
// certificates (tls-auth-clients yes), the --tls-* flags connect every
// command that talks to Redis (a lock held by run, ls, the demo's MONITOR
// and worker processes); without the client certificate, the CA or the
// right server name the command fails at once with exit 1 and says which
// flag is missing.
func TestMutualTLS(t *testing.T) {
	t.Parallel()
	files := redistest.TLSFiles(t)
	srv := redistest.StartServer(t, redistest.Options{TLS: files})
	url := "rediss://" + srv.Addr()
	mtls := []string{"--redis", url, "--tls-ca", files.CAFile, "--tls-cert", files.ClientCertFile, "--tls-key", files.ClientKeyFile}

	r := cli(t, 60*time.Second, append([]string{"run", "--lock", "tls-job"}, append(mtls, "--", "echo", "held")...)...)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "held" {
		t.Fatalf("run with the client certificate:\n%v", r)
	}
	// The same over a redis:// URL: a --tls-* flag turns TLS on.
	plainURL := append([]string{"--redis", "redis://" + srv.Addr()}, mtls[2:]...)
	r = cli(t, 60*time.Second, append([]string{"ls", "--json"}, plainURL...)...)
	if r.code != 0 || !strings.Contains(r.stdout, `"objects"`) {
		t.Fatalf("ls with the client certificate over redis:// and --tls-*:\n%v", r)
	}
	// --tls-server-name: the certificate names localhost.
	r = cli(t, 60*time.Second, append([]string{"ls"}, append(mtls, "--tls-server-name", "localhost")...)...)
	if r.code != 0 {
		t.Fatalf("ls with --tls-server-name localhost:\n%v", r)
	}
	// --tls-insecure: no CA needed.
	r = cli(t, 60*time.Second, "ls", "--redis", url, "--tls-insecure", "--tls-cert", files.ClientCertFile, "--tls-key", files.ClientKeyFile)
	if r.code != 0 {
		t.Fatalf("ls with --tls-insecure:\n%v", r)
	}
	// The demo: MONITOR connections and worker processes get the flags too.
	r = cli(t, 3*time.Minute, append([]string{"demo", "--ops", "200", "--procs", "2", "--workers", "4"}, mtls...)...)
	checkDemo(t, r)
	if !strings.Contains(r.stdout, "(TLS)") {
		t.Errorf("demo does not say it uses TLS:\n%s", r.stdout)
	}

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no client certificate", []string{"--redis", url, "--tls-ca", files.CAFile},
			"the server wants a client certificate: give --tls-cert and --tls-key"},
		{"no CA", []string{"--redis", url, "--tls-cert", files.ClientCertFile, "--tls-key", files.ClientKeyFile},
			"give it with --tls-ca FILE"},
		{"wrong server name", append(mtls, "--tls-server-name", "redis.example.com"),
			"--tls-server-name"},
		{"plain connection", []string{"--redis", "redis://" + srv.Addr()},
			"use rediss:// or a --tls-* flag"},
	} {
		r := cli(t, 60*time.Second, append([]string{"run", "--lock", "tls-job"}, append(tc.args, "--", "echo", "held")...)...)
		if r.code != cliflag.ExitError || r.stdout != "" || !strings.Contains(r.stderr, "cannot reach Redis at "+srv.Addr()) ||
			!strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: want exit 1, CMD not run, and %q:\n%v", tc.name, tc.want, r)
		}
	}
}

// TestTLSFlagErrors: TLS files that cannot be used are usage errors, found
// before anything is dialled.
func TestTLSFlagErrors(t *testing.T) {
	t.Parallel()
	files := redistest.TLSFiles(t)
	notPEM := filepath.Join(t.TempDir(), "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	const dead = "rediss://127.0.0.1:1"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"cert without key", []string{"--tls-cert", files.ClientCertFile}, "--tls-cert and --tls-key go together"},
		{"key without cert", []string{"--tls-key", files.ClientKeyFile}, "--tls-cert and --tls-key go together"},
		{"missing CA file", []string{"--tls-ca", filepath.Join(t.TempDir(), "none.pem")}, "--tls-ca: open"},
		{"CA file without a certificate", []string{"--tls-ca", notPEM}, "no PEM certificate"},
		{"key of another certificate", []string{"--tls-cert", files.ClientCertFile, "--tls-key", files.ServerKeyFile},
			"--tls-cert/--tls-key"},
	} {
		r := cli(t, 30*time.Second, append([]string{"ls", "--redis", dead}, tc.args...)...)
		checkUsage(t, tc.name, r, tc.want)
	}
}
