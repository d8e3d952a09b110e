package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"
	"k8s.io/streaming/pkg/httpstream"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Commands run in a sandbox through the API server's pods/exec, which
// needs no network in the pod: API server, kubelet, then the node's
// runtime. The API gives an exec no environment, user or working
// directory of its own (the plan refuses them on a cluster), and can
// neither list nor kill a pod's processes: closing an exec's stream stops
// nothing (the command and all it started run on, measured under runc and
// gVisor). So a command the caller gives up on is stopped the one way the
// API has, which does not depend on anything inside the sandbox: its pod
// is deleted, and the next plan creates the sandbox again.

// execStopTimeout bounds the deletion of the pod of an interrupted command.
const execStopTimeout = 30 * time.Second

// stopExec deletes the pod of an interrupted command.
func (c *Client) stopExec(ctx context.Context, id string) engine.ExecStop {
	ctx, cancel := context.WithTimeout(ctx, execStopTimeout)
	defer cancel()
	if err := c.RemoveContainer(ctx, id); err != nil {
		return engine.ExecStop{Err: err, Note: fmt.Sprintf("the Kubernetes API cannot kill a command's processes, "+
			"and deleting the sandbox's pod to stop them failed (%v), so the command and anything it started may "+
			"still run in pod %s. Delete it: %s", err, engine.ShortID(id), c.ByHand().Remove(id))}
	}
	return engine.ExecStop{Restarted: true, Note: fmt.Sprintf("the Kubernetes API cannot kill a command's "+
		"processes, so the sandbox's pod %s was deleted, which stopped them all, and with them its main process "+
		"and what it held in memory and on its root filesystem. The next plan creates the sandbox again",
		engine.ShortID(id))}
}

// RunExec runs spec in the sandbox's running pod and waits for it to end.
func (c *Client) RunExec(ctx context.Context, id string, spec engine.ExecSpec) (engine.ExecResult, error) {
	if err := engine.Refused(c.RefuseCommand(ctx, engine.PlannedCommand{Spec: spec})); err != nil {
		return engine.ExecResult{}, err
	}
	pod, err := c.getPod(ctx, id)
	if err != nil {
		return engine.ExecResult{}, err
	}
	exec, err := c.executor(pod, spec.Command, false)
	if err != nil {
		return engine.ExecResult{}, err
	}
	out := engine.NewExecOutput(spec)
	runCtx, cancel := engine.WithRunTimeout(ctx, spec.Timeout)
	defer cancel()
	done := engine.InFlight()
	err = exec.StreamWithContext(runCtx, remotecommand.StreamOptions{Stdout: out.Stdout(), Stderr: out.Stderr()})
	done()
	if runCtx.Err() != nil {
		return engine.ExecResult{}, &engine.ExecInterruptedError{Container: id, Cause: runCtx.Err(),
			Stop: c.stopExec(context.WithoutCancel(ctx), id)}
	}
	var exit utilexec.ExitError
	switch {
	case errors.As(err, &exit):
		return out.Result("", exit.ExitStatus()), nil
	case err != nil:
		return engine.ExecResult{}, classify(err)
	}
	return out.Result("", 0), nil
}

// executor streams a command in the pod's sandbox container over
// WebSocket, or SPDY where the API server has no WebSocket exec; stdin
// gives it a standard input, and then SPDY is tried first. WebSocket's
// client fails a stream when no answer to its ping comes within a minute,
// and the API server answers a ping only once it has passed on the data
// before it: a restore into a pod whose disk writes slowly (9 GiB on a
// loaded machine) held the standard input that long, and failed ("next
// reader: ... i/o timeout"). SPDY has no such deadline; WebSocket is used
// where the SPDY stream failed before it read any input (spdyFirst).
func (c *Client) executor(pod *corev1.Pod, command []string, stdin bool) (remotecommand.Executor, error) {
	url := c.core.Post().Namespace(pod.Namespace).Resource("pods").Name(pod.Name).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: sandboxContainer(pod).Name, Command: command,
			Stdin: stdin, Stdout: true, Stderr: true}, c.params).URL()
	ws, err := remotecommand.NewWebSocketExecutor(c.rest, "GET", url.String())
	if err != nil {
		return nil, err
	}
	spdy, err := remotecommand.NewSPDYExecutor(c.rest, "POST", url)
	if err != nil {
		return nil, err
	}
	if stdin {
		return spdyFirst{spdy: spdy, ws: ws}, nil
	}
	return remotecommand.NewFallbackExecutor(ws, spdy, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
}

// LastLogLines returns the last lines (at most n) the sandbox's main
// process wrote, for an error that says why it does not stay up; those
// of its last run when it is waiting to be restarted.
func (c *Client) LastLogLines(ctx context.Context, id string, n int) (string, error) {
	pod, err := c.getPod(ctx, id)
	if err != nil {
		return "", err
	}
	status := containerStatus(pod, sandboxContainer(pod).Name)
	out := engine.NewOutput(1)
	err = c.call(ctx, "the request for a pod's log", engine.QuickCallTimeout, func(ctx context.Context) error {
		req := c.core.Get().Namespace(pod.Namespace).Resource("pods").Name(pod.Name).SubResource("log").
			Param("container", sandboxContainer(pod).Name).Param("tailLines", strconv.Itoa(n))
		if status.State.Waiting != nil && status.RestartCount > 0 {
			req = req.Param("previous", "true")
		}
		rc, err := req.Stream(ctx)
		if err != nil {
			return err
		}
		defer func() { _ = rc.Close() }()
		_, err = io.Copy(out.Stdout(), io.LimitReader(rc, 64<<10))
		return err
	})
	return strings.TrimSpace(out.Tail()), err
}
