package connection

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/client"
)

// testPKI is a CA with a server and a client certificate, made for one test.
type testPKI struct {
	caPEM, serverCert, serverKey, clientCert, clientKey []byte
	ca                                                  *x509.Certificate
	caKey                                               *ecdsa.PrivateKey
}

func newTestPKI(t *testing.T, serverNames []string, notAfter time.Time) *testPKI {
	t.Helper()
	caKey := mustKey(t)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	p := &testPKI{caPEM: pemBlock("CERTIFICATE", caDER), ca: ca, caKey: caKey}
	p.serverCert, p.serverKey = p.issue(t, serverNames, x509.ExtKeyUsageServerAuth, notAfter)
	p.clientCert, p.clientKey = p.issue(t, nil, x509.ExtKeyUsageClientAuth, time.Now().Add(time.Hour))
	return p
}

func (p *testPKI) issue(t *testing.T, names []string, usage x509.ExtKeyUsage, notAfter time.Time) (cert, key []byte) {
	t.Helper()
	k := mustKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "test"},
		NotBefore: time.Now().Add(-2 * time.Hour), NotAfter: notAfter,
		ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature,
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &k.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return pemBlock("CERTIFICATE", der), pemBlock("EC PRIVATE KEY", keyDER)
}

func mustKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func pemBlock(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

// fakeEngine answers /_ping over TLS as dockerd --tlsverify does: it
// requires a client certificate its CA signed.
func fakeEngine(t *testing.T, p *testPKI) string {
	t.Helper()
	pair, err := tls.X509KeyPair(p.serverCert, p.serverKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(p.caPEM)
	srv := httptest.NewUnstartedServer(pingHandler())
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return "tcp://" + srv.Listener.Addr().String()
}

func pingHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Api-Version", "1.41")
		_, _ = w.Write([]byte("OK"))
	})
}

// noDockerEnv clears the Docker environment, the docker CLI's current
// context included, for the test.
func noDockerEnv(t *testing.T) {
	for _, key := range []string{client.EnvOverrideHost, client.EnvTLSVerify, client.EnvOverrideCertPath, envContext} {
		t.Setenv(key, "")
	}
	t.Setenv("DOCKER_CONFIG", t.TempDir())
}

// ping asks the engine cfg names for /_ping through the endpoint's own
// transport, as the API client does, and explains a failure as the client
// does.
func ping(t *testing.T, cfg Config) error {
	t.Helper()
	e, err := Open(cfg)
	if err != nil {
		return err
	}
	transport := e.Transport().Clone()
	if dial := e.Dialer(); dial != nil {
		transport.DialContext = dial
	}
	defer transport.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	scheme, host := e.URL()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, scheme+"://"+host+"/_ping", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err == nil {
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("GET %s: %s", req.URL, resp.Status)
		}
	}
	if err != nil {
		return e.Explain(ctx, err)
	}
	return nil
}

func TestTLSVerifiedConnection(t *testing.T) {
	noDockerEnv(t)
	good := newTestPKI(t, []string{"127.0.0.1"}, time.Now().Add(time.Hour))
	host := fakeEngine(t, good)
	inline := Config{Host: host, CAPEM: string(good.caPEM), CertPEM: string(good.clientCert), KeyPEM: string(good.clientKey)}
	if err := ping(t, inline); err != nil {
		t.Fatalf("inline PEM: %v", err)
	}

	dir := t.TempDir()
	for name, data := range map[string][]byte{caFile: good.caPEM, certFile: good.clientCert, keyFile: good.clientKey} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := ping(t, Config{Host: host, CertPath: dir}); err != nil {
		t.Fatalf("cert_path: %v", err)
	}
	t.Run("DOCKER_CERT_PATH alone still verifies", func(t *testing.T) {
		t.Setenv(client.EnvOverrideCertPath, dir)
		if err := ping(t, Config{Host: host}); err != nil {
			t.Fatalf("DOCKER_CERT_PATH: %v", err)
		}
		other := newTestPKI(t, []string{"127.0.0.1"}, time.Now().Add(time.Hour))
		if err := ping(t, Config{Host: fakeEngine(t, other)}); err == nil {
			t.Fatal("DOCKER_CERT_PATH without DOCKER_TLS_VERIFY connected to an engine of another CA")
		}
	})
	t.Run("DOCKER_TLS_VERIFY reads ~/.docker", func(t *testing.T) {
		home := t.TempDir()
		if err := os.CopyFS(filepath.Join(home, ".docker"), os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		t.Setenv("HOME", home)
		t.Setenv(client.EnvTLSVerify, "1")
		t.Setenv(client.EnvOverrideHost, host)
		if err := ping(t, Config{}); err != nil {
			t.Fatalf("DOCKER_HOST, DOCKER_TLS_VERIFY and ~/.docker: %v", err)
		}
	})
}

func TestTLSFailuresSayWhichAndWhatToDo(t *testing.T) {
	noDockerEnv(t)
	good := newTestPKI(t, []string{"127.0.0.1"}, time.Now().Add(time.Hour))
	other := newTestPKI(t, []string{"127.0.0.1"}, time.Now().Add(time.Hour))
	expired := newTestPKI(t, []string{"127.0.0.1"}, time.Now().Add(-time.Hour))
	wrongName := newTestPKI(t, []string{"engine.example"}, time.Now().Add(time.Hour))
	plain := httptest.NewServer(pingHandler())
	t.Cleanup(plain.Close)
	plainHost := "tcp://" + plain.Listener.Addr().String()

	with := func(host string, ca *testPKI, client *testPKI) Config {
		cfg := Config{Host: host, CAPEM: string(ca.caPEM)}
		if client != nil {
			cfg.CertPEM, cfg.KeyPEM = string(client.clientCert), string(client.clientKey)
		}
		return cfg
	}
	for _, c := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"engine of another CA", with(fakeEngine(t, other), good, good), "not signed by a CA the provider trusts"},
		{"wrong host name", with(fakeEngine(t, wrongName), wrongName, wrongName), "not valid for the host name"},
		{"expired engine certificate", with(fakeEngine(t, expired), expired, expired), "has expired"},
		{"no client certificate", with(fakeEngine(t, good), good, nil), "requires a client certificate"},
		{"client certificate of another CA", with(fakeEngine(t, good), good, other), "refused the provider's client certificate"},
		{"TLS to a plain HTTP engine", with(plainHost, good, good), "does not speak TLS"},
		{"plain HTTP to a TLS engine", Config{Host: fakeEngine(t, good)}, "speaks TLS and the provider was given no TLS settings"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := ping(t, c.cfg)
			if err == nil {
				t.Fatal("connected")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "127.0.0.1") {
				t.Errorf("error %q does not say %q and name the endpoint", err, c.want)
			}
		})
	}
}

func TestTLSSettingsRefusedWhereTheyCannotApply(t *testing.T) {
	noDockerEnv(t)
	p := newTestPKI(t, []string{"127.0.0.1"}, time.Now().Add(time.Hour))
	for _, c := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"TLS on a unix socket", Config{Host: "unix:///var/run/docker.sock", CAPEM: string(p.caPEM)}, "apply to tcp:// hosts only"},
		{"both ways at once", Config{Host: "tcp://127.0.0.1:2376", CertPath: "/x", CAPEM: string(p.caPEM)}, "exclude each other"},
		{"certificate without key", Config{Host: "tcp://127.0.0.1:2376", CertPEM: string(p.clientCert)}, "without its key"},
		{"CA that is not PEM", Config{Host: "tcp://127.0.0.1:2376", CAPEM: "not pem"}, "holds no PEM certificate"},
		{"mismatched pair", Config{Host: "tcp://127.0.0.1:2376", CertPEM: string(p.clientCert), KeyPEM: string(p.serverKey)}, "not a usable pair"},
		{"empty directory", Config{Host: "tcp://127.0.0.1:2376", CertPath: t.TempDir()}, "holds none of ca.pem"},
		{"ssh options on tcp", Config{Host: "tcp://127.0.0.1:2376", SSHOpts: []string{"-v"}}, "ssh:// hosts only"},
		{"not a URL", Config{Host: "not a url"}, "invalid Docker engine endpoint"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Open(c.cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
	t.Run("environment TLS is ignored for a unix socket", func(t *testing.T) {
		t.Setenv(client.EnvTLSVerify, "1")
		if _, err := Open(Config{Host: "unix:///var/run/docker.sock"}); err != nil {
			t.Fatal(err)
		}
	})
}

func TestBlackHoledAddressFailsInBoundedTime(t *testing.T) {
	noDockerEnv(t)
	// 192.0.2.0/24 is reserved for documentation: nothing answers there.
	start := time.Now()
	err := ping(t, Config{Host: "tcp://192.0.2.1:2376"})
	if err == nil {
		t.Fatal("connected to a black hole")
	}
	if elapsed := time.Since(start); elapsed > DialTimeout+5*time.Second {
		t.Errorf("took %s", elapsed)
	}
	if !strings.Contains(err.Error(), "192.0.2.1") {
		t.Errorf("error %q does not name the endpoint", err)
	}
}
