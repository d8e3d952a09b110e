package connection

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/docker/docker/client"
	"github.com/docker/go-connections/tlsconfig"
)

// The files a certificate directory holds, in the layout of DOCKER_CERT_PATH.
const (
	caFile   = "ca.pem"
	certFile = "cert.pem"
	keyFile  = "key.pem"
)

// tlsMaterial is the PEM the provider presents to, and verifies, a TLS
// engine, and where it came from, for messages.
type tlsMaterial struct {
	ca, cert, key []byte
	from          string
}

// tlsFor decides whether the provider speaks TLS to a tcp:// host and with
// what. The provider's own settings come first; without them, the Docker
// environment: DOCKER_CERT_PATH, or DOCKER_TLS_VERIFY with the docker CLI's
// default directory ~/.docker. Unlike the docker CLI, a certificate
// directory without DOCKER_TLS_VERIFY still means a verified connection: the
// provider never connects without verifying the engine's certificate.
func tlsFor(cfg Config, scheme string) (*tlsMaterial, error) {
	explicit := cfg.CertPath != "" || cfg.CAPEM != "" || cfg.CertPEM != "" || cfg.KeyPEM != ""
	if explicit && scheme != "tcp" {
		return nil, fmt.Errorf("TLS settings (cert_path, ca_pem, cert_pem, key_pem) apply to tcp:// hosts only, "+
			"and the host is %s://: remove them, or point host at the engine's TLS port (tcp://HOST:2376)", scheme)
	}
	if scheme != "tcp" {
		return nil, nil
	}
	switch {
	case cfg.CertPath != "" && (cfg.CAPEM != "" || cfg.CertPEM != "" || cfg.KeyPEM != ""):
		return nil, errors.New("cert_path and the inline PEM settings (ca_pem, cert_pem, key_pem) exclude " +
			"each other: give the TLS material one way")
	case cfg.CertPath != "":
		return readCertDir(cfg.CertPath, "cert_path "+cfg.CertPath)
	case explicit:
		return &tlsMaterial{ca: []byte(cfg.CAPEM), cert: []byte(cfg.CertPEM), key: []byte(cfg.KeyPEM),
			from: "ca_pem, cert_pem and key_pem"}, nil
	}
	dir := os.Getenv(client.EnvOverrideCertPath)
	if dir != "" {
		return readCertDir(dir, client.EnvOverrideCertPath+"="+dir)
	}
	if os.Getenv(client.EnvTLSVerify) == "" {
		return nil, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("%s is set but %s is not, and the home directory holding ~/.docker "+
			"is unknown: %w", client.EnvTLSVerify, client.EnvOverrideCertPath, err)
	}
	dir = filepath.Join(home, ".docker")
	return readCertDir(dir, client.EnvTLSVerify+" with the default directory "+dir)
}

// readCertDir reads ca.pem, cert.pem and key.pem from dir. Each may be
// missing: without ca.pem the system's CAs verify the engine; without
// cert.pem and key.pem the provider presents no client certificate.
func readCertDir(dir, from string) (*tlsMaterial, error) {
	m := &tlsMaterial{from: from}
	for name, into := range map[string]*[]byte{caFile: &m.ca, certFile: &m.cert, keyFile: &m.key} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("reading %s from %s: %w", name, from, err)
		}
		*into = data
	}
	if m.ca == nil && m.cert == nil && m.key == nil {
		return nil, fmt.Errorf("%s holds none of %s, %s and %s: point it at the directory with the engine's "+
			"CA and this client's certificate and key", from, caFile, certFile, keyFile)
	}
	return m, nil
}

// config builds the client's TLS configuration: the engine's certificate is
// always verified, against the given CA or else the system's.
func (m *tlsMaterial) config() (*tls.Config, error) {
	cfg := tlsconfig.ClientDefault()
	if len(m.ca) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(m.ca) {
			return nil, fmt.Errorf("the CA from %s holds no PEM certificate", m.from)
		}
		cfg.RootCAs = pool
	}
	switch {
	case len(m.cert) > 0 && len(m.key) > 0:
		pair, err := tls.X509KeyPair(m.cert, m.key)
		if err != nil {
			return nil, fmt.Errorf("the client certificate and key from %s are not a usable pair: %w", m.from, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	case len(m.cert) > 0 || len(m.key) > 0:
		return nil, fmt.Errorf("%s gives a client certificate without its key, or a key without its "+
			"certificate: give both (%s and %s, or cert_pem and key_pem) or neither", m.from, certFile, keyFile)
	}
	return cfg, nil
}

// explainTLS says, for a failed call over TLS, which part of TLS failed
// and what to do; it returns "" when err is not a TLS failure.
func explainTLS(err error, m *tlsMaterial, host string) string {
	var (
		unknownCA   x509.UnknownAuthorityError
		wrongName   x509.HostnameError
		invalid     x509.CertificateInvalidError
		notTLS      tls.RecordHeaderError
		op          *net.OpError
		hasCert     = len(m.cert) > 0
		verifyError *tls.CertificateVerificationError
	)
	switch {
	case errors.As(err, &unknownCA):
		return fmt.Sprintf("The engine's certificate is not signed by a CA the provider trusts (the CA from %s). "+
			"Give the provider the CA that signed the engine's certificate (ca_pem, or %s in cert_path), or "+
			"have the engine's certificate issued by your CA.", m.from, caFile)
	case errors.As(err, &wrongName):
		return fmt.Sprintf("The engine's certificate is not valid for the host name %q: %v. Point host at a name "+
			"or address the certificate lists, or reissue the engine's certificate with %q among its subject "+
			"alternative names.", host, wrongName.Error(), host)
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return fmt.Sprintf("The engine's certificate has expired or is not valid yet (%v). Renew it on the "+
			"engine, or correct the clock of whichever machine is wrong.", invalid.Error())
	case errors.As(err, &verifyError):
		return fmt.Sprintf("The engine's certificate failed verification against the CA from %s: %v. Fix the "+
			"engine's certificate or the CA given to the provider.", m.from, verifyError.Err)
	case errors.As(err, &notTLS):
		return "The engine does not speak TLS at this address. Use the address of its TLS port, or remove the " +
			"TLS settings for an engine that listens in plain HTTP on a network you trust."
	case errors.As(err, &op) && op.Op == "remote error" && !hasCert:
		return fmt.Sprintf("The engine requires a client certificate and the provider has none (%v). Give it "+
			"the client certificate and key the engine's CA signed: cert_pem and key_pem, or %s and %s in "+
			"cert_path.", op.Err, certFile, keyFile)
	case errors.As(err, &op) && op.Op == "remote error":
		return fmt.Sprintf("The engine refused the provider's client certificate (%v): it must be signed by the "+
			"CA the engine trusts (dockerd --tlscacert), be unexpired, and be meant for client authentication.",
			op.Err)
	}
	return ""
}

// requiresTLS reports whether the plain tcp:// address answers a TLS
// handshake: then the engine wants TLS and the provider was given none.
// The handshake verifies as any connection does; only whether the engine
// speaks TLS at all matters here, and nothing is sent over it.
func requiresTLS(ctx context.Context, addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	err = handshake(ctx, addr, &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12})
	// A verification failure or an alert from the engine means it speaks
	// TLS; anything else (a plain HTTP answer, a timeout, a closed
	// connection) says nothing of the kind.
	var (
		verify *tls.CertificateVerificationError
		op     *net.OpError
	)
	return err == nil || errors.As(err, &verify) || (errors.As(err, &op) && op.Op == "remote error")
}

// handshake opens a TLS connection to addr with cfg, within 5 seconds, and
// closes it; with TLS 1.3 the engine's verdict on the client certificate
// arrives with the first read, so it reads once.
func handshake(ctx context.Context, addr string, cfg *tls.Config) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := (&tls.Dialer{Config: cfg}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := conn.Read(make([]byte, 1)); err != nil {
		var netError net.Error
		if errors.As(err, &netError) && netError.Timeout() {
			return nil
		}
		return err
	}
	return nil
}
