package redistest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TLS is the certificate files of a TLS-only server (Options.TLS) and of its
// clients: a private CA, a server certificate for 127.0.0.1 and localhost,
// and a client certificate, all signed by the CA. NewTLS makes them.
type TLS struct {
	CAFile         string
	ServerCertFile string
	ServerKeyFile  string
	ClientCertFile string
	ClientKeyFile  string
	// AuthClients makes the server require a client certificate signed by
	// the CA (tls-auth-clients yes: mutual TLS); otherwise it asks for none.
	AuthClients bool
}

// NewTLS writes a fresh CA, server and client certificates and keys (PEM,
// ECDSA P-256, valid for a day) into dir, for a server that requires client
// certificates.
func NewTLS(dir string) (*TLS, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("redistest: %w", err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "redistest CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("redistest: CA certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("redistest: CA certificate: %w", err)
	}
	t := &TLS{
		CAFile:         filepath.Join(dir, "ca.crt"),
		ServerCertFile: filepath.Join(dir, "server.crt"),
		ServerKeyFile:  filepath.Join(dir, "server.key"),
		ClientCertFile: filepath.Join(dir, "client.crt"),
		ClientKeyFile:  filepath.Join(dir, "client.key"),
		AuthClients:    true,
	}
	if err := writePEM(t.CAFile, "CERTIFICATE", caDER); err != nil {
		return nil, err
	}
	server := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if err := issue(server, ca, caKey, t.ServerCertFile, t.ServerKeyFile); err != nil {
		return nil, err
	}
	client := &x509.Certificate{
		SerialNumber: big.NewInt(3),
		Subject:      pkix.Name{CommonName: "redistest client"},
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if err := issue(client, ca, caKey, t.ClientCertFile, t.ClientKeyFile); err != nil {
		return nil, err
	}
	return t, nil
}

// TLSFiles is NewTLS in a directory of the test's, removed at cleanup.
func TLSFiles(t testing.TB) *TLS {
	t.Helper()
	files, err := NewTLS(t.TempDir())
	if err != nil {
		t.Fatalf("%v", err)
	}
	return files
}

// issue signs tmpl with the CA and writes the certificate and a new key.
func issue(tmpl, ca *x509.Certificate, caKey *ecdsa.PrivateKey, certFile, keyFile string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("redistest: %w", err)
	}
	tmpl.NotBefore, tmpl.NotAfter = ca.NotBefore, ca.NotAfter
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return fmt.Errorf("redistest: certificate %s: %w", tmpl.Subject.CommonName, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("redistest: %w", err)
	}
	if err := writePEM(certFile, "CERTIFICATE", der); err != nil {
		return err
	}
	return writePEM(keyFile, "PRIVATE KEY", keyDER)
}

func writePEM(path, typ string, der []byte) error {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("redistest: %w", err)
	}
	return nil
}

// ClientConfig is the TLS configuration of a client that trusts the CA and
// presents the client certificate.
func (t *TLS) ClientConfig() (*tls.Config, error) {
	cfg, err := t.CAConfig()
	if err != nil {
		return nil, err
	}
	cert, err := tls.LoadX509KeyPair(t.ClientCertFile, t.ClientKeyFile)
	if err != nil {
		return nil, fmt.Errorf("redistest: client certificate: %w", err)
	}
	cfg.Certificates = []tls.Certificate{cert}
	return cfg, nil
}

// CAConfig is the TLS configuration of a client that trusts the CA and has
// no certificate of its own.
func (t *TLS) CAConfig() (*tls.Config, error) {
	pemCA, err := os.ReadFile(t.CAFile)
	if err != nil {
		return nil, fmt.Errorf("redistest: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemCA) {
		return nil, fmt.Errorf("redistest: no certificate in %s", t.CAFile)
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

// serverArgs are the redis-server arguments of a TLS-only server on port:
// the plain port is off.
func (t *TLS) serverArgs(port string) []string {
	auth := "no"
	if t.AuthClients {
		auth = "yes"
	}
	return []string{
		"--port", "0",
		"--tls-port", port,
		"--tls-cert-file", t.ServerCertFile,
		"--tls-key-file", t.ServerKeyFile,
		"--tls-ca-cert-file", t.CAFile,
		"--tls-auth-clients", auth,
	}
}
