package conn

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// tlsFlags are the --tls-* flags. Any of them turns TLS on.
type tlsFlags struct {
	ca, cert, key, serverName string
	insecure                  bool
}

// set reports whether any --tls-* flag was given.
func (t tlsFlags) set() bool {
	return t.ca != "" || t.cert != "" || t.key != "" || t.serverName != "" || t.insecure
}

// args are the --tls-* flags as given, for a child process.
func (t tlsFlags) Args() []string {
	var a []string
	for _, f := range []struct{ name, v string }{
		{"--tls-ca", t.ca}, {"--tls-cert", t.cert}, {"--tls-key", t.key}, {"--tls-server-name", t.serverName},
	} {
		if f.v != "" {
			a = append(a, f.name, f.v)
		}
	}
	if t.insecure {
		a = append(a, "--tls-insecure")
	}
	return a
}

// apply returns the TLS configuration of a connection: the one the URL
// asked for (rediss://, or nil) with the flags laid over it. Without flags
// it is base itself. A file that cannot be used is a usage error.
func (t tlsFlags) apply(base *tls.Config) (*tls.Config, error) {
	if !t.set() {
		return base, nil
	}
	if (t.cert == "") != (t.key == "") {
		return nil, ErrUsage{"--tls-cert and --tls-key go together: give both or neither"}
	}
	var c *tls.Config
	if base != nil {
		c = base.Clone()
	} else {
		// No ServerName: crypto/tls then checks each address's own host,
		// which is what a cluster's nodes need.
		c = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if t.ca != "" {
		pemCA, err := os.ReadFile(t.ca)
		if err != nil {
			return nil, ErrUsage{fmt.Sprintf("--tls-ca: %v", err)}
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pemCA) {
			return nil, ErrUsage{fmt.Sprintf("--tls-ca %s: no PEM certificate in it", t.ca)}
		}
		c.RootCAs = pool
	}
	if t.cert != "" {
		cert, err := tls.LoadX509KeyPair(t.cert, t.key)
		if err != nil {
			return nil, ErrUsage{fmt.Sprintf("--tls-cert/--tls-key: %v", err)}
		}
		c.Certificates = []tls.Certificate{cert}
	}
	if t.serverName != "" {
		c.ServerName = t.serverName
	}
	if t.insecure {
		c.InsecureSkipVerify = true
	}
	return c, nil
}

// tlsHint says what to do about a TLS failure in err, or "".
func (c *Flags) tlsHint(err error, tlsOn bool) string {
	msg := err.Error()
	var unknownCA x509.UnknownAuthorityError
	var badHost x509.HostnameError
	switch {
	case strings.Contains(msg, "certificate required") || strings.Contains(msg, "bad certificate") ||
		strings.Contains(msg, "unknown certificate authority") && c.TLS.cert != "":
		if c.TLS.cert == "" {
			return "the server wants a client certificate: give --tls-cert and --tls-key"
		}
		return "the server refused the client certificate of --tls-cert: is it signed by a CA the server trusts (tls-ca-cert-file)?"
	case errors.As(err, &unknownCA):
		return "the server's certificate is signed by a CA this machine does not trust: give it with --tls-ca FILE"
	case errors.As(err, &badHost):
		return "the server's certificate is for another name: connect by that name, or give it with --tls-server-name"
	case !tlsOn && (errors.Is(err, io.EOF) || strings.Contains(msg, "connection reset")):
		return "a TLS port closes plain connections: is it one? then use rediss:// or a --tls-* flag"
	}
	return ""
}
