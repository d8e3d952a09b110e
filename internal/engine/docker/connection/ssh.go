package connection

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// defaultRemoteSocket is the engine's socket on an ssh:// host whose URL
// names none.
const defaultRemoteSocket = "/var/run/docker.sock"

// sshReadyTimeout bounds how long the provider waits for the ssh client to
// connect, authenticate and open its forwarding; ssh's own ConnectTimeout
// bounds the TCP connection within it.
const sshReadyTimeout = 30 * time.Second

// sshTarget is where an ssh:// host leads: ssh://[user@]host[:port][/socket].
type sshTarget struct {
	user, host, port string
	// socket is the engine's unix socket on the remote host.
	socket string
}

func parseSSH(u *url.URL) (sshTarget, error) {
	if u.Hostname() == "" {
		return sshTarget{}, fmt.Errorf("%s names no host: write ssh://[user@]host[:port][/path/to/engine.sock]", u.Redacted())
	}
	if _, hasPassword := u.User.Password(); hasPassword {
		return sshTarget{}, fmt.Errorf("%s carries a password: the provider authenticates with keys only "+
			"(ssh-agent, ~/.ssh identities or -i in ssh_opts); remove the password", u.Redacted())
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return sshTarget{}, fmt.Errorf("%s has a query or fragment, which ssh:// hosts do not take", u.Redacted())
	}
	t := sshTarget{user: u.User.Username(), host: u.Hostname(), port: u.Port(), socket: u.Path}
	if t.socket == "" || t.socket == "/" {
		t.socket = defaultRemoteSocket
	}
	return t, nil
}

func (t sshTarget) String() string {
	s := "ssh://"
	if t.user != "" {
		s += t.user + "@"
	}
	s += t.host
	if t.port != "" {
		s += ":" + t.port
	}
	return s + t.socket
}

// sshTunnel reaches a remote engine through one OpenSSH client process
// that forwards a local unix socket to the engine's socket on the remote
// host (ssh -L local.sock:remote.sock). Every connection the provider opens
// is a channel of that one SSH connection: no process per connection, and
// the user's OpenSSH setup (~/.ssh/config, known_hosts, identities,
// ssh-agent) applies as it does for `ssh` itself. docs/guides/engines.md
// has the measurements.
// When the ssh process ends (the network dropped), the next connection
// starts a new one.
type sshTunnel struct {
	target sshTarget
	opts   []string
	dir    string

	mu      sync.Mutex
	current *sshProcess
	started int
}

// sshProcess is one run of the ssh client.
type sshProcess struct {
	cmd    *exec.Cmd
	socket string
	stderr *tail
	exited chan struct{}
}

// tunnels are this process's tunnels, one per target and options: every
// provider instance for the same engine shares one ssh process (Terraform
// configures a provider once per process, but tests serve many instances
// from one process, and the framework never says when one is done). A
// tunnel ends with the process.
var (
	tunnelsMu sync.Mutex
	tunnels   = map[string]*sshTunnel{}
)

// sshTunnelFor returns the process's tunnel to target with opts, making it
// on first use.
func sshTunnelFor(target sshTarget, opts []string) (*sshTunnel, error) {
	key := target.String() + "\x00" + strings.Join(opts, "\x00")
	tunnelsMu.Lock()
	defer tunnelsMu.Unlock()
	if t, ok := tunnels[key]; ok {
		return t, nil
	}
	t, err := newSSHTunnel(target, opts)
	if err != nil {
		return nil, err
	}
	tunnels[key] = t
	return t, nil
}

func newSSHTunnel(target sshTarget, opts []string) (*sshTunnel, error) {
	if _, err := exec.LookPath("ssh"); err != nil {
		return nil, fmt.Errorf("reaching %s needs the OpenSSH client (ssh) on PATH: %w", target, err)
	}
	// Unix socket paths are short (108 bytes): a short directory of our own.
	dir, err := os.MkdirTemp("", "tfsandbox-ssh-")
	if err != nil {
		return nil, fmt.Errorf("creating the directory for the SSH tunnel's socket: %w", err)
	}
	return &sshTunnel{target: target, opts: opts, dir: dir}, nil
}

// sshArgs is the ssh command line. The user's ssh_opts come first because
// ssh keeps the first value it reads for an option, so they can override
// the provider's choices. No option weakens host key checking: with
// BatchMode an unknown or changed host key is an error.
func (t *sshTunnel) sshArgs(socket string) []string {
	args := append([]string{}, t.opts...)
	args = append(args,
		"-N", "-T",
		"-o", "BatchMode=yes",
		"-o", "ExitOnForwardFailure=yes",
		"-o", "ConnectTimeout=10",
		"-o", "ServerAliveInterval=10",
		"-o", "ServerAliveCountMax=3",
		"-o", "StreamLocalBindUnlink=yes",
		// This process is the multiplexer; a ControlMaster in the user's
		// configuration would take the forwarding away from it.
		"-o", "ControlMaster=no",
		"-o", "ControlPath=none",
		"-L", socket+":"+t.target.socket,
	)
	if t.target.user != "" {
		args = append(args, "-l", t.target.user)
	}
	if t.target.port != "" {
		args = append(args, "-p", t.target.port)
	}
	return append(args, "--", t.target.host)
}

// dial opens a connection to the remote engine, starting the ssh client
// first when none runs.
func (t *sshTunnel) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	socket, err := t.ready(ctx)
	if err != nil {
		return nil, err
	}
	return (&net.Dialer{}).DialContext(ctx, "unix", socket)
}

func (t *sshTunnel) ready(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.current != nil && !t.current.hasExited() {
		return t.current.socket, nil
	}
	t.started++
	p, err := t.start(ctx, filepath.Join(t.dir, fmt.Sprintf("engine-%d.sock", t.started)))
	if err != nil {
		return "", err
	}
	t.current = p
	return p.socket, nil
}

// start runs ssh and waits until its local socket accepts a connection,
// ssh exits, or sshReadyTimeout passes.
func (t *sshTunnel) start(ctx context.Context, socket string) (*sshProcess, error) {
	cmd := exec.Command("ssh", t.sshArgs(socket)...)
	p := &sshProcess{cmd: cmd, socket: socket, stderr: &tail{max: 4096}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	cmd.SysProcAttr = endWithParent()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting ssh for %s: %w", t.target, err)
	}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	ctx, cancel := context.WithTimeout(ctx, sshReadyTimeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		// ssh creates the socket file when it binds and accepts once it
		// listens: until then a connection is refused, so the tunnel is
		// ready when one is accepted.
		if conn, err := net.Dial("unix", socket); err == nil {
			_ = conn.Close()
			return p, nil
		}
		select {
		case <-p.exited:
			return nil, &SSHError{Target: t.target.String(), Output: p.stderr.String(), Exit: cmd.ProcessState.String()}
		case <-ctx.Done():
			p.stop()
			return nil, &SSHError{Target: t.target.String(), Output: p.stderr.String(),
				Exit: fmt.Sprintf("no connection within %s (%v)", sshReadyTimeout, ctx.Err())}
		case <-tick.C:
		}
	}
}

// output is what the running ssh client has reported, for messages about
// calls that failed through the tunnel.
func (t *sshTunnel) output() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.current == nil {
		return ""
	}
	return t.current.stderr.String()
}

func (p *sshProcess) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

func (p *sshProcess) stop() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// SSHError says that the ssh client could not open the tunnel to an
// engine, with what ssh itself reported.
type SSHError struct {
	Target string
	Output string
	Exit   string
}

func (e *SSHError) Error() string {
	out := strings.TrimSpace(e.Output)
	if out == "" {
		out = "(ssh printed nothing)"
	}
	return fmt.Sprintf("ssh could not open a tunnel to the engine at %s (%s). ssh said:\n%s\n\n%s",
		e.Target, e.Exit, out, e.advice())
}

// advice picks the fix for what ssh reported. ssh has no error codes but
// exit status 255, so its own words are all there is to go on.
func (e *SSHError) advice() string {
	switch {
	case strings.Contains(e.Output, "Host key verification failed") ||
		strings.Contains(e.Output, "REMOTE HOST IDENTIFICATION HAS CHANGED"):
		return "The host's key is not in known_hosts, or differs from the one recorded there. Check the " +
			"key's fingerprint with the host's administrator, then trust it by connecting once with " +
			"`ssh " + e.sshDestination() + "` and answering yes (or `ssh-keyscan` the host into " +
			"~/.ssh/known_hosts, or name a known_hosts file with ssh_opts = [\"-o\", " +
			"\"UserKnownHostsFile=...\"]). The provider never turns host key checking off."
	case strings.Contains(e.Output, "Permission denied"):
		return "The host refused every key offered. Load the key into ssh-agent, name it in ~/.ssh/config " +
			"(IdentityFile), or pass ssh_opts = [\"-i\", \"/path/to/key\"], then check that `ssh " +
			e.sshDestination() + " true` works without a prompt; passwords and passphrase prompts cannot be " +
			"answered during a Terraform run."
	}
	return "Check that `ssh " + e.sshDestination() + " true` works without a prompt from this machine, that " +
		"the host runs sshd and allows stream-local forwarding (AllowStreamLocalForwarding), and that the " +
		"host and port are right."
}

func (e *SSHError) sshDestination() string {
	u, err := url.Parse(e.Target)
	if err != nil {
		return e.Target
	}
	dest := u.Hostname()
	if u.User != nil {
		dest = u.User.Username() + "@" + dest
	}
	if u.Port() != "" {
		dest = "-p " + u.Port() + " " + dest
	}
	return dest
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// IsSSH reports whether err is the ssh client failing to reach an engine.
func IsSSH(err error) bool {
	var s *SSHError
	return errors.As(err, &s)
}

// CloseTunnels stops this process's ssh clients and removes their sockets,
// for the provider's exit. (On Linux the kernel also stops them when the
// process dies.)
func CloseTunnels() {
	tunnelsMu.Lock()
	defer tunnelsMu.Unlock()
	for key, t := range tunnels {
		t.mu.Lock()
		if t.current != nil && !t.current.hasExited() {
			t.current.stop()
		}
		_ = os.RemoveAll(t.dir)
		t.mu.Unlock()
		delete(tunnels, key)
	}
}
