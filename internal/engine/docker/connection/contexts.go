package connection

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/docker/cli/cli/config"
	clicontext "github.com/docker/cli/cli/context"
	"github.com/docker/cli/cli/context/store"
	"github.com/docker/docker/client"
)

// envContext names the docker CLI context to use, as for the docker CLI.
const envContext = "DOCKER_CONTEXT"

// defaultContext is the docker CLI's context that stands for DOCKER_HOST
// and the local socket.
const defaultContext = "default"

// endpoint is where a Config leads: the address, and the TLS material a
// docker CLI context holds for it.
type endpoint struct {
	host    string
	tls     *tlsMaterial
	context string
}

// resolve decides which engine cfg names, in the docker CLI's order: the
// host argument; the context argument; DOCKER_CONTEXT; DOCKER_HOST; the
// current context of the docker CLI's configuration (DOCKER_CONFIG, or
// ~/.docker); the local socket. Contexts are read with the docker CLI's own
// context store.
func resolve(cfg Config) (endpoint, error) {
	if cfg.Host != "" && cfg.Context != "" {
		return endpoint{}, errors.New("host and context exclude each other: give the engine one way")
	}
	if cfg.Host != "" {
		return endpoint{host: cfg.Host}, nil
	}
	name := cfg.Context
	if name == "" {
		name = os.Getenv(envContext)
	}
	if name == "" && os.Getenv(client.EnvOverrideHost) == "" {
		if file, err := config.Load(configDir()); err == nil {
			name = file.CurrentContext
		}
	}
	if name == "" || name == defaultContext {
		return endpoint{host: ResolveHost("")}, nil
	}
	return fromContext(name)
}

// configDir is the docker CLI's configuration directory.
func configDir() string {
	if dir := os.Getenv(config.EnvOverrideConfigDir); dir != "" {
		return dir
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".docker"
	}
	return filepath.Join(home, ".docker")
}

// fromContext reads the docker endpoint of the named context.
func fromContext(name string) (endpoint, error) {
	dir := filepath.Join(configDir(), "contexts")
	s := store.New(dir, store.NewConfig(
		func() any { return &map[string]any{} },
		store.EndpointTypeGetter("docker", func() any { return &clicontext.EndpointMetaBase{} }),
	))
	meta, err := s.GetMetadata(name)
	if err != nil {
		return endpoint{}, fmt.Errorf("docker context %q cannot be read from %s: %w. List the contexts with "+
			"`docker context ls`", name, dir, err)
	}
	ep, ok := meta.Endpoints["docker"].(clicontext.EndpointMetaBase)
	if !ok {
		if p, isPtr := meta.Endpoints["docker"].(*clicontext.EndpointMetaBase); isPtr && p != nil {
			ep, ok = *p, true
		}
	}
	if !ok || ep.Host == "" {
		return endpoint{}, fmt.Errorf("docker context %q has no Docker endpoint", name)
	}
	if ep.SkipTLSVerify {
		return endpoint{}, fmt.Errorf("docker context %q skips verifying the engine's certificate "+
			"(skip-tls-verify), which the provider never does. Give the context the engine's CA: "+
			"docker context update %s --docker \"host=%s,ca=/path/to/ca.pem,cert=...,key=...\"", name, name, ep.Host)
	}
	out := endpoint{host: ep.Host, context: name}
	files, err := s.ListTLSFiles(name)
	if err != nil {
		return endpoint{}, fmt.Errorf("docker context %q: %w", name, err)
	}
	if len(files["docker"]) == 0 {
		return out, nil
	}
	m := &tlsMaterial{from: fmt.Sprintf("docker context %q", name)}
	for _, file := range files["docker"] {
		data, err := s.GetTLSData(name, "docker", file)
		if err != nil {
			return endpoint{}, fmt.Errorf("reading %s of docker context %q: %w", file, name, err)
		}
		switch file {
		case caFile:
			m.ca = data
		case certFile:
			m.cert = data
		case keyFile:
			m.key = data
		}
	}
	out.tls = m
	return out, nil
}
