package connection

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestParseSSH(t *testing.T) {
	for in, want := range map[string]sshTarget{
		"ssh://build-1":                               {host: "build-1", socket: defaultRemoteSocket},
		"ssh://deploy@build-1:2222":                   {user: "deploy", host: "build-1", port: "2222", socket: defaultRemoteSocket},
		"ssh://deploy@build-1/run/podman/podman.sock": {user: "deploy", host: "build-1", socket: "/run/podman/podman.sock"},
	} {
		u, _ := url.Parse(in)
		got, err := parseSSH(u)
		if err != nil || got != want {
			t.Errorf("%s: %+v, %v; want %+v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"ssh://":                  "names no host",
		"ssh://me:secret@build-1": "carries a password",
		"ssh://build-1?socket=/x": "query or fragment",
	} {
		u, _ := url.Parse(in)
		if _, err := parseSSH(u); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", in, err, want)
		}
		if strings.Contains(in, "secret") {
			if _, err := parseSSH(u); strings.Contains(err.Error(), "secret") {
				t.Errorf("the error repeats the password: %v", err)
			}
		}
	}
}

func TestSSHArgsLetTheUserWinAndNeverWeakenHostKeys(t *testing.T) {
	tunnel := &sshTunnel{
		target: sshTarget{user: "deploy", host: "build-1", port: "2222", socket: "/run/engine.sock"},
		opts:   []string{"-o", "ConnectTimeout=3"},
	}
	args := tunnel.sshArgs("/tmp/x/engine-1.sock")
	if !slices.Equal(args[:2], []string{"-o", "ConnectTimeout=3"}) {
		t.Errorf("the user's options must come first (ssh keeps the first value): %v", args)
	}
	joined := strings.Join(args, " ")
	for _, want := range []string{"BatchMode=yes", "-L /tmp/x/engine-1.sock:/run/engine.sock", "-l deploy", "-p 2222", "-- build-1"} {
		if !strings.Contains(joined, want) {
			t.Errorf("ssh %s lacks %q", joined, want)
		}
	}
	if strings.Contains(strings.ToLower(joined), "stricthostkeychecking") {
		t.Errorf("ssh %s touches host key checking", joined)
	}
	if !strings.HasSuffix(joined, "-- build-1") {
		t.Errorf("the host must come last, after --: %s", joined)
	}
}

func TestSSHErrorAdvice(t *testing.T) {
	for output, want := range map[string]string{
		"Host key verification failed.\r\n":                        "never turns host key checking off",
		"@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @":     "differs from the one recorded there",
		"deploy@build-1: Permission denied (publickey).":           "refused every key offered",
		"ssh: connect to host build-1 port 22: Connection refused": "runs sshd",
	} {
		err := &SSHError{Target: "ssh://deploy@build-1:2222/var/run/docker.sock", Output: output, Exit: "exit status 255"}
		msg := err.Error()
		if !strings.Contains(msg, want) || !strings.Contains(msg, strings.TrimSpace(output)) ||
			!strings.Contains(msg, "ssh://deploy@build-1:2222") {
			t.Errorf("for %q: %s", output, msg)
		}
		if !strings.Contains(msg, "-p 2222 deploy@build-1") {
			t.Errorf("the advice's ssh command does not reach the same host: %s", msg)
		}
	}
}

func TestTailKeepsTheEnd(t *testing.T) {
	tl := &tail{max: 5}
	_, _ = tl.Write([]byte("abc"))
	_, _ = tl.Write([]byte("defg"))
	if got := tl.String(); got != "cdefg" {
		t.Errorf("tail %q", got)
	}
}
