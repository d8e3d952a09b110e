package docker

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// fakeEngine is a client of an engine on loopback that answers with
// handle, after saying it speaks API 1.41; the environment's Docker
// settings are cleared for the test.
func fakeEngine(t *testing.T, handle http.HandlerFunc) *Client {
	t.Helper()
	for _, key := range []string{"DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH", "DOCKER_CONTEXT"} {
		t.Setenv(key, "")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Api-Version", "1.41")
		handle(w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := New(Config{Host: "tcp://" + srv.Listener.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
