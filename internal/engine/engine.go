// Package engine wraps the few Docker Engine API calls the provider uses. It
// holds one API client per provider instance and returns the engine's own
// errors (classified by errdefs), wrapped with what was being done.
package engine

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/jsonmessage"
	"github.com/docker/go-connections/nat"
)

// Client talks to one Docker engine.
type Client struct {
	api      *client.Client
	endpoint string
}

// ResolveHost returns the endpoint the provider uses: host when it is set,
// else DOCKER_HOST, else the engine's local unix socket.
func ResolveHost(host string) string {
	if host != "" {
		return host
	}
	if env := os.Getenv(client.EnvOverrideHost); env != "" {
		return env
	}
	return client.DefaultDockerHost
}

// New builds a client for the engine at host (resolved by ResolveHost). It
// negotiates the API version with the engine on first use and does not
// contact the engine itself: call Ping for that.
func New(host string) (*Client, error) {
	endpoint := ResolveHost(host)
	if err := refuseUnsupportedTLS(endpoint); err != nil {
		return nil, err
	}
	api, err := client.NewClientWithOpts(
		client.WithHost(endpoint),
		client.WithAPIVersionNegotiation(),
		client.WithUserAgent("terraform-provider-sandbox"),
	)
	if err != nil {
		return nil, fmt.Errorf("invalid Docker engine endpoint %q: %w", endpoint, err)
	}
	return &Client{api: api, endpoint: endpoint}, nil
}

// refuseUnsupportedTLS fails when the environment asks for TLS to a TCP
// endpoint. This version speaks plain HTTP only, and it never connects
// without verifying the engine's certificate, so it refuses rather than
// downgrade.
func refuseUnsupportedTLS(endpoint string) error {
	if !strings.HasPrefix(endpoint, "tcp://") {
		return nil
	}
	for _, key := range []string{client.EnvTLSVerify, client.EnvOverrideCertPath} {
		if os.Getenv(key) != "" {
			return fmt.Errorf("%s is set, asking for TLS to %s, which this provider version does not support; "+
				"it will not connect to an engine without verifying its certificate. Reach the engine over "+
				"its unix socket or an SSH tunnel, or unset %s and %s for a plain TCP endpoint you trust",
				key, endpoint, client.EnvTLSVerify, client.EnvOverrideCertPath)
		}
	}
	return nil
}

// Endpoint is the address of the engine this client talks to.
func (c *Client) Endpoint() string { return c.endpoint }

// Close releases the client's connections.
func (c *Client) Close() error { return c.api.Close() }

// Ping checks that the engine answers and negotiates the API version.
func (c *Client) Ping(ctx context.Context) error {
	if _, err := c.api.Ping(ctx); err != nil {
		return err
	}
	return nil
}

// IsNotFound reports whether err says the object does not exist.
func IsNotFound(err error) bool { return cerrdefs.IsNotFound(err) }

// IsConflict reports whether err says the object conflicts with an existing
// one (for example a container name already in use).
func IsConflict(err error) bool { return cerrdefs.IsConflict(err) }

// ImageMissingError says that an image is not on the engine and could not be
// pulled.
type ImageMissingError struct {
	Ref     string
	PullErr error
}

func (e *ImageMissingError) Error() string {
	return fmt.Sprintf("image %q is not present on the engine and pulling it failed: %v", e.Ref, e.PullErr)
}

func (e *ImageMissingError) Unwrap() error { return e.PullErr }

// EnsureImage makes sure ref is present on the engine: it inspects it and,
// when it is missing, tries one pull. It returns the image's inspect data, or
// an *ImageMissingError when the image is absent and the pull failed.
func (c *Client) EnsureImage(ctx context.Context, ref string) (image.InspectResponse, error) {
	img, err := c.api.ImageInspect(ctx, ref)
	if err == nil {
		return img, nil
	}
	if !IsNotFound(err) {
		return image.InspectResponse{}, fmt.Errorf("inspecting image %q: %w", ref, err)
	}
	if err := c.pull(ctx, ref); err != nil {
		return image.InspectResponse{}, &ImageMissingError{Ref: ref, PullErr: err}
	}
	img, err = c.api.ImageInspect(ctx, ref)
	if err != nil {
		return image.InspectResponse{}, &ImageMissingError{Ref: ref, PullErr: err}
	}
	return img, nil
}

// pull pulls ref and reads the progress stream to its end, returning the
// first error the engine reports in it.
func (c *Client) pull(ctx context.Context, ref string) error {
	rc, err := c.api.ImagePull(ctx, ref, image.PullOptions{})
	if err != nil {
		return err
	}
	defer func() { _ = rc.Close() }()
	return jsonmessage.DisplayJSONMessagesStream(rc, io.Discard, 0, false, nil)
}

// InspectImage returns the engine's data for an image.
func (c *Client) InspectImage(ctx context.Context, ref string) (image.InspectResponse, error) {
	img, err := c.api.ImageInspect(ctx, ref)
	if err != nil {
		return image.InspectResponse{}, fmt.Errorf("inspecting image %q: %w", ref, err)
	}
	return img, nil
}

// ContainerSpec is what the provider asks the engine to create.
type ContainerSpec struct {
	Name        string
	Image       string
	NetworkMode string // empty: the engine's default network
	Entrypoint  []string
	Command     []string
	Env         []string
	Labels      map[string]string
	WorkingDir  string
	User        string
	Init        bool

	CapAdd      []string
	CapDrop     []string
	SecurityOpt []string
	ReadOnly    bool
	Tmpfs       map[string]string // mount path: mount options
	Runtime     string            // empty: the engine's default runtime
	Limits      Limits
	ShmSize     int64 // bytes; 0: the engine's default
	Ulimits     []Ulimit
	Ports       []PortBinding
}

// Limits are the resource limits the engine can change on a live container.
// Zero means no limit.
type Limits struct {
	Memory     int64 // bytes
	MemorySwap int64 // bytes of memory plus swap; -1 for unlimited swap
	NanoCPUs   int64 // CPUs in units of 10^-9
	PidsLimit  int64
}

// Ulimit is a process resource limit set in the container.
type Ulimit struct {
	Name       string
	Soft, Hard int64
}

// PortBinding publishes a container port on the host.
type PortBinding struct {
	Port     int    // in the container
	Protocol string // tcp, udp or sctp
	HostIP   string
	HostPort int // 0: the engine picks a free port
}

// PortKey is the engine's name of a container port, "80/tcp".
func (p PortBinding) PortKey() nat.Port { return nat.Port(fmt.Sprintf("%d/%s", p.Port, p.Protocol)) }

// CreateContainer creates (but does not start) a container and returns its ID.
func (c *Client) CreateContainer(ctx context.Context, spec ContainerSpec) (string, error) {
	cfg := &container.Config{
		Image:        spec.Image,
		Entrypoint:   spec.Entrypoint,
		Cmd:          spec.Command,
		Env:          spec.Env,
		Labels:       spec.Labels,
		WorkingDir:   spec.WorkingDir,
		User:         spec.User,
		ExposedPorts: exposedPorts(spec.Ports),
	}
	resp, err := c.api.ContainerCreate(ctx, cfg, hostConfig(spec), nil, nil, spec.Name)
	if err != nil {
		return "", err
	}
	return resp.ID, nil
}

// hostConfig is the part of spec the engine applies on the host: network,
// privileges, mounts and limits.
func hostConfig(spec ContainerSpec) *container.HostConfig {
	h := &container.HostConfig{
		NetworkMode:    container.NetworkMode(spec.NetworkMode),
		Init:           &spec.Init,
		CapAdd:         spec.CapAdd,
		CapDrop:        spec.CapDrop,
		SecurityOpt:    spec.SecurityOpt,
		ReadonlyRootfs: spec.ReadOnly,
		Tmpfs:          spec.Tmpfs,
		Runtime:        spec.Runtime,
		ShmSize:        spec.ShmSize,
		Resources:      resources(spec.Limits),
		PortBindings:   portBindings(spec.Ports),
	}
	for _, u := range spec.Ulimits {
		h.Ulimits = append(h.Ulimits, &container.Ulimit{Name: u.Name, Soft: u.Soft, Hard: u.Hard})
	}
	return h
}

func exposedPorts(ports []PortBinding) nat.PortSet {
	if len(ports) == 0 {
		return nil
	}
	set := nat.PortSet{}
	for _, p := range ports {
		set[p.PortKey()] = struct{}{}
	}
	return set
}

func portBindings(ports []PortBinding) nat.PortMap {
	if len(ports) == 0 {
		return nil
	}
	bindings := nat.PortMap{}
	for _, p := range ports {
		hostPort := ""
		if p.HostPort != 0 {
			hostPort = strconv.Itoa(p.HostPort)
		}
		bindings[p.PortKey()] = append(bindings[p.PortKey()], nat.PortBinding{HostIP: p.HostIP, HostPort: hostPort})
	}
	return bindings
}

func resources(l Limits) container.Resources {
	r := container.Resources{Memory: l.Memory, MemorySwap: l.MemorySwap, NanoCPUs: l.NanoCPUs}
	if l.PidsLimit != 0 {
		r.PidsLimit = &l.PidsLimit
	}
	return r
}

// UpdateLimits changes the resource limits of a container, running or not.
// The engine cannot lift a memory or CPU limit this way (zero means "leave
// as is" to it), so callers replace the container for that.
func (c *Client) UpdateLimits(ctx context.Context, id string, l Limits) error {
	_, err := c.api.ContainerUpdate(ctx, id, container.UpdateConfig{Resources: resources(l)})
	return err
}

// File is a file written into a container.
type File struct {
	Path    string // absolute
	Content []byte
	Mode    int64
}

// CopyFiles writes files into a container's filesystem, creating missing
// parent directories. Files are owned by root. The engine refuses this for
// a container with a read-only root filesystem.
func (c *Client) CopyFiles(ctx context.Context, id string, files []File) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		hdr := &tar.Header{
			Name:     strings.TrimPrefix(path.Clean(f.Path), "/"),
			Mode:     f.Mode,
			Size:     int64(len(f.Content)),
			Typeflag: tar.TypeReg,
			ModTime:  time.Now(),
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(f.Content); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return c.api.CopyToContainer(ctx, id, "/", &buf, container.CopyToContainerOptions{})
}

// InspectContainer returns the engine's data for a container, by ID or name.
func (c *Client) InspectContainer(ctx context.Context, idOrName string) (container.InspectResponse, error) {
	return c.api.ContainerInspect(ctx, idOrName)
}

// StartContainer starts a created or stopped container.
func (c *Client) StartContainer(ctx context.Context, id string) error {
	return c.api.ContainerStart(ctx, id, container.StartOptions{})
}

// UnpauseContainer resumes a paused container.
func (c *Client) UnpauseContainer(ctx context.Context, id string) error {
	return c.api.ContainerUnpause(ctx, id)
}

// StopContainer sends the container's stop signal, waits up to graceSeconds
// for it to exit, then kills it. A container that is gone counts as stopped.
func (c *Client) StopContainer(ctx context.Context, id string, graceSeconds int) error {
	err := c.api.ContainerStop(ctx, id, container.StopOptions{Timeout: &graceSeconds})
	if err != nil && !IsNotFound(err) {
		return err
	}
	return nil
}

// RemoveContainer force-removes a container and its anonymous volumes. A
// container that is already gone counts as removed.
func (c *Client) RemoveContainer(ctx context.Context, id string) error {
	err := c.api.ContainerRemove(ctx, id, container.RemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !IsNotFound(err) {
		return err
	}
	return nil
}

// RenameContainer gives a container a new name.
func (c *Client) RenameContainer(ctx context.Context, id, name string) error {
	return c.api.ContainerRename(ctx, id, name)
}

// ErrNoEngine is returned for a nil client, as when a resource is used before
// the provider was configured.
var ErrNoEngine = errors.New("the provider has no Docker engine client; was it configured?")
