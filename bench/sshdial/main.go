// Command sshdial measures the two ways to reach an engine over SSH that
// docs/guides/engines.md compares: the provider's tunnel (one OpenSSH process forwarding
// the engine's socket; every connection is a channel of one SSH
// connection) and a new ssh process per connection running `docker system
// dial-stdio` on the host, as Docker's connection helper does. It inspects
// one container -n times with -parallel calls in flight, through the Docker
// SDK with its default connection pool, and prints the wall time and the
// failures.
//
//	go run ./bench/sshdial -host ssh://root@127.0.0.1:22220 -mode tunnel
//	go run ./bench/sshdial -host ssh://root@127.0.0.1:22220 -mode per-connection
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine/docker"
)

func main() {
	host := flag.String("host", "", "ssh://[user@]host[:port]")
	mode := flag.String("mode", "tunnel", "tunnel or per-connection")
	n := flag.Int("n", 400, "inspections")
	parallel := flag.Int("parallel", 50, "inspections in flight at once")
	image := flag.String("image", "tfsandbox/busybox:latest", "local image for the container inspected")
	flag.Parse()

	api, err := connect(*host, *mode)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx := context.Background()
	created, err := api.ContainerCreate(ctx, &container.Config{Image: *image, Cmd: []string{"true"}},
		&container.HostConfig{NetworkMode: "none"}, nil, nil, "")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer func() { _ = api.ContainerRemove(ctx, created.ID, container.RemoveOptions{Force: true}) }()

	var failures atomic.Int32
	var firstErr atomic.Value
	sem := make(chan struct{}, *parallel)
	var wg sync.WaitGroup
	start := time.Now()
	for range *n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			callCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			if _, err := api.ContainerInspect(callCtx, created.ID); err != nil {
				failures.Add(1)
				firstErr.CompareAndSwap(nil, err.Error())
			}
		}()
	}
	wg.Wait()
	fmt.Printf("%s\tn=%d\tparallel=%d\t%.2f s\tfailures=%d", *mode, *n, *parallel, time.Since(start).Seconds(), failures.Load())
	if e := firstErr.Load(); e != nil {
		fmt.Printf("\tfirst: %s", e)
	}
	fmt.Println()
}

func connect(host, mode string) (*client.Client, error) {
	switch mode {
	case "tunnel":
		c, err := docker.New(docker.Config{Host: host})
		if err != nil {
			return nil, err
		}
		return c.DockerAPI(), nil
	case "per-connection":
		u, err := url.Parse(host)
		if err != nil {
			return nil, err
		}
		args := []string{"-o", "BatchMode=yes"}
		if u.Port() != "" {
			args = append(args, "-p", u.Port())
		}
		dest := u.Hostname()
		if u.User != nil {
			dest = u.User.Username() + "@" + dest
		}
		args = append(args, "--", dest, "docker", "system", "dial-stdio")
		return client.NewClientWithOpts(client.WithHost("http://"+client.DummyHost),
			client.WithDialContext(func(context.Context, string, string) (net.Conn, error) {
				return dialProcess(args)
			}), client.WithAPIVersionNegotiation())
	}
	return nil, fmt.Errorf("unknown mode %q", mode)
}

// processConn is a connection over an ssh process's stdin and stdout.
type processConn struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out io.ReadCloser
}

func dialProcess(args []string) (net.Conn, error) {
	cmd := exec.Command("ssh", args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &processConn{cmd: cmd, in: in, out: out}, nil
}

func (c *processConn) Read(p []byte) (int, error)  { return c.out.Read(p) }
func (c *processConn) Write(p []byte) (int, error) { return c.in.Write(p) }
func (c *processConn) Close() error {
	_ = c.in.Close()
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
	return nil
}
func (c *processConn) LocalAddr() net.Addr              { return dummyAddr{} }
func (c *processConn) RemoteAddr() net.Addr             { return dummyAddr{} }
func (c *processConn) SetDeadline(time.Time) error      { return nil }
func (c *processConn) SetReadDeadline(time.Time) error  { return nil }
func (c *processConn) SetWriteDeadline(time.Time) error { return nil }

type dummyAddr struct{}

func (dummyAddr) Network() string { return "ssh" }
func (dummyAddr) String() string  { return "ssh" }
