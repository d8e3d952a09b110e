package engine

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/distribution/reference"
)

// Private registries: the credentials the provider's registry_auth gives
// for each registry host, which a Docker engine's or Podman's pull sends
// and a cluster's pod gets as its image pull secret. They never reach a
// state, a plan, a log or an error: String hides the password, and every
// message names the setting they came from instead.

// RegistryAuth is one registry's credentials.
type RegistryAuth struct {
	// Host is the registry's host[:port], as image references name it
	// ("docker.io" for Docker Hub).
	Host string
	// Username and Password, or IdentityToken (what a credential helper
	// may give instead).
	Username, Password, IdentityToken string
	// Setting names where they came from: registry_auth["ghcr.io"].
	Setting string
}

// String hides the secret, whatever prints it.
func (a RegistryAuth) String() string {
	return fmt.Sprintf("%s (user %q, from %s)", a.Host, a.Username, a.Setting)
}

// GoString hides the secret from %#v too.
func (a RegistryAuth) GoString() string { return a.String() }

// Registries gives the credentials for a registry host, when the provider
// has any: ok is false for a host it has none for. A credential helper's
// failure is an error that names the setting.
type Registries interface {
	For(host string) (auth RegistryAuth, ok bool, err error)
	// Hosts are the registries it has credentials for.
	Hosts() []string
}

// RegistryHost is the registry host an image reference names ("docker.io"
// for a reference without one, as the engines read it).
func RegistryHost(ref string) (string, error) {
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return "", fmt.Errorf("reading the image reference %q: %w", ref, err)
	}
	return reference.Domain(named), nil
}

// RegistryAuthError is a pull a registry refused for want of credentials,
// or for the ones given: Auth.Setting names them, or the provider had none
// for Host.
type RegistryAuthError struct {
	Host string
	// Auth is what the pull sent (Setting empty: nothing).
	Auth RegistryAuth
	Err  error
}

func (e *RegistryAuthError) Error() string {
	if e.Auth.Setting == "" {
		return fmt.Sprintf("the registry %s asks for credentials, and the provider has none for it (%v): add a "+
			"registry_auth entry for %q to the provider block, with a username and password or a Docker config "+
			"file that holds them", e.Host, e.Err, e.Host)
	}
	return fmt.Sprintf("the registry %s refused the credentials of %s (%v): check that entry's username and "+
		"password (or its config_file), and that they may pull this image", e.Host, e.Auth.Setting, e.Err)
}

func (e *RegistryAuthError) Unwrap() error { return e.Err }

// CredentialsRefused says whether a pull failed for its credentials: an
// engine classifies an error it answers with, but one in a pull's stream,
// or in a pod's status, comes as the registry's words alone, which are
// matched here, and only here. message, when not empty, is those words.
func CredentialsRefused(err error, message string) bool {
	if err != nil && (cerrdefs.IsUnauthorized(err) || cerrdefs.IsPermissionDenied(err)) {
		return true
	}
	if message == "" && err != nil {
		message = err.Error()
	}
	message = strings.ToLower(message)
	for _, words := range []string{"unauthorized", "authentication required", "no basic auth credentials",
		"denied: requested access", "invalid username/password", "incorrect username or password"} {
		if strings.Contains(message, words) {
			return true
		}
	}
	return false
}

// ErrNoAuth stands for a registry's refusal given only in words.
var ErrNoAuth = errors.New("the registry refused the pull")

// StaticRegistries are credentials resolved once per host, on first use
// (a credential helper runs once), by resolve.
type StaticRegistries struct {
	hosts   []string
	resolve func(host string) (RegistryAuth, bool, error)
	mu      sync.Mutex
	known   map[string]resolved
}

type resolved struct {
	auth RegistryAuth
	ok   bool
	err  error
}

// NewRegistries makes Registries for hosts that ask resolve once per host.
func NewRegistries(hosts []string, resolve func(host string) (RegistryAuth, bool, error)) *StaticRegistries {
	return &StaticRegistries{hosts: hosts, resolve: resolve, known: map[string]resolved{}}
}

// Hosts are the registries it has credentials for.
func (r *StaticRegistries) Hosts() []string {
	if r == nil {
		return nil
	}
	return r.hosts
}

// For gives the host's credentials.
func (r *StaticRegistries) For(host string) (RegistryAuth, bool, error) {
	if r == nil {
		return RegistryAuth{}, false, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if k, ok := r.known[host]; ok {
		return k.auth, k.ok, k.err
	}
	auth, ok, err := r.resolve(host)
	r.known[host] = resolved{auth, ok, err}
	return auth, ok, err
}
