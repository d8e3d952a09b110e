package acctest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The destinations a sandbox on the test cluster must not reach, each a
// real listener that an ordinary pod of the cluster reaches: another pod,
// a DNS server, the node, the API server, and a host off the node. The
// isolation proof connects to each from inside a sandbox and from a
// control pod.

// Destination is an address to connect to, what it stands for, and what
// it answers: "ok", unless Answer says otherwise.
type Destination struct {
	What   string
	Addr   string // host:port
	Answer string
}

// NodeListener listens on the pod network's gateway, an address of the
// node, until the test ends, answering "ok" to every connection.
func NodeListener(t *testing.T) Destination {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(PodGateway(t), "0"))
	if err != nil {
		t.Fatalf("listening on the node's pod network address: %v", err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go serve(ln, func(c net.Conn) { _, _ = io.WriteString(c, "ok\n") })
	return Destination{What: "the node", Addr: ln.Addr().String()}
}

// APIServerOnNode makes the API server reachable from the pod network at
// an address of the node, as a cluster's nodes do (this test cluster's
// API server listens on loopback only), until the test ends.
func APIServerOnNode(t *testing.T) Destination {
	t.Helper()
	u, err := url.Parse(Cluster(t).Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(PodGateway(t), "0"))
	if err != nil {
		t.Fatalf("listening on the node's pod network address: %v", err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go serve(ln, func(c net.Conn) {
		upstream, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
		if err != nil {
			return
		}
		defer func() { _ = upstream.Close() }()
		go func() { _, _ = io.Copy(upstream, c) }()
		_, _ = io.Copy(c, upstream)
	})
	// Go's TLS servers answer plain HTTP with a 400 that says so.
	return Destination{What: "the API server", Addr: ln.Addr().String(), Answer: "HTTP/1.0 400"}
}

func serve(ln net.Listener, handle func(net.Conn)) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer func() { _ = c.Close() }()
			handle(c)
		}()
	}
}

// OffNodeHost is a host beyond the node: a network namespace of its own,
// joined to the node by a veth pair and routed by it, listening on port
// 8080 with busybox's nc, until the test ends.
func OffNodeHost(t *testing.T) Destination {
	t.Helper()
	ns, hostIf := "tfsb-offnode-"+RandString(4), "tfsboff"+RandString(4)
	const hostAddr, peerAddr = "10.252.0.1", "10.252.0.2"
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	run("ip", "netns", "add", ns)
	t.Cleanup(func() {
		_ = exec.Command("ip", "link", "delete", hostIf).Run()
		_ = exec.Command("ip", "netns", "delete", ns).Run()
	})
	run("ip", "link", "add", hostIf, "type", "veth", "peer", "name", "eth0", "netns", ns)
	run("ip", "addr", "add", hostAddr+"/24", "dev", hostIf)
	run("ip", "link", "set", hostIf, "up")
	run("ip", "-n", ns, "addr", "add", peerAddr+"/24", "dev", "eth0")
	run("ip", "-n", ns, "link", "set", "eth0", "up")
	run("ip", "-n", ns, "link", "set", "lo", "up")
	run("ip", "-n", ns, "route", "add", "default", "via", hostAddr)
	ctx, cancel := context.WithCancel(context.Background())
	listener := exec.CommandContext(ctx, "ip", "netns", "exec", ns, "busybox", "nc", "-ll", "-p", "8080",
		"-e", "/bin/echo", "ok")
	if err := listener.Start(); err != nil {
		cancel()
		t.Fatalf("starting the off-node listener: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		_ = listener.Wait()
	})
	return Destination{What: "a host off the node", Addr: net.JoinHostPort(peerAddr, "8080")}
}

// ListenerPod runs an ordinary pod (the node's default runtime, on the pod
// network) that answers "ok" on port, standing for what, until the test
// ends.
func ListenerPod(t *testing.T, name, what string, port int) Destination {
	t.Helper()
	pod := RunPod(t, ClusterPod{Name: name, Command: []string{"nc", "-ll", "-p", fmt.Sprint(port), "-e", "/bin/echo", "ok"}})
	return Destination{What: what, Addr: net.JoinHostPort(pod.Status.PodIP, fmt.Sprint(port))}
}

// Reaches reports whether the pod (a sandbox's ID, or a name) connects to
// dest from inside, with the image's busybox nc, and what it said.
func Reaches(ctx context.Context, t *testing.T, pod string, dest Destination) (bool, string) {
	t.Helper()
	host, port, _ := net.SplitHostPort(dest.Addr)
	answer := dest.Answer
	if answer == "" {
		answer = "ok"
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, _, err := InPod(ctx, t, pod, "sh", "-c",
		fmt.Sprintf(`printf 'GET / HTTP/1.0\r\n\r\n' | nc -w 3 %s %s 2>&1 | head -c 200`, host, port))
	if err != nil {
		t.Fatalf("running nc in %s: %v", pod, err)
	}
	return strings.Contains(out, answer), strings.TrimSpace(out)
}
