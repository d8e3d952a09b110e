package containerresource

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	pathattr "github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// Host paths: a part of the engine's host mounted into a sandbox, only with
// allow_host_paths, and never one that hands the sandbox the host.

// handsOverTheHost are the host's paths that no sandbox may mount, whatever
// its opt-in, nor any path above or below them: the host's root, its
// kernel's and devices' filesystems, its configuration, boot files and
// root's home, its run-time state (every engine's socket among it), and the
// engines' data.
var handsOverTheHost = []string{
	"/proc", "/sys", "/dev", "/etc", "/boot", "/root", "/run", "/var/run",
	"/var/lib/docker", "/var/lib/containerd", "/var/lib/containers",
}

// engineSocketNames are the names of the engines' sockets, refused wherever
// they are.
var engineSocketNames = []string{"docker.sock", "podman.sock", "containerd.sock", "dockershim.sock", "crio.sock"}

const hostPathDescription = "An absolute path on the engine's host to mount (on a remote engine, a path " +
	"of that host, not of the machine running Terraform), only with `allow_host_paths = true`, read-only " +
	"unless `read_only = false`, with private bind propagation. Refused whatever the opt-in, because they " +
	"hand the host to the sandbox: `/`, a path at, above or below `/proc`, `/sys`, `/dev`, `/etc`, `/boot`, " +
	"`/root`, `/run` (and `/var/run`), the engines' data (`/var/lib/docker`, `/var/lib/containerd`, " +
	"`/var/lib/containers` and the engine's own data root), any engine socket, a directory that holds a " +
	"socket or has another filesystem mounted under it (the engine binds it with everything under it), and " +
	"any path that leads to one of them through symbolic links. Only a local engine's host paths can be checked for symbolic links, " +
	"so host paths are refused on a remote engine (TCP, TLS, SSH): use a `sandbox_volume` there."

// hostPathProblem says why a host path hands the host to a sandbox, or ""
// when it does not; refused are the paths in forbidden and those below
// them, and every path above one of them.
func hostPathProblem(p string, forbidden []string) string {
	if p == "/" {
		return "it is the host's root"
	}
	if slices.Contains(engineSocketNames, path.Base(p)) {
		return "it is an engine's socket, which hands the engine, and so the host, to the sandbox"
	}
	for _, f := range forbidden {
		switch {
		case under(p, f):
			return fmt.Sprintf("it is %s or lies under it", f)
		case under(f, p):
			return fmt.Sprintf("it holds %s", f)
		}
	}
	return ""
}

// forbiddenOn is handsOverTheHost with the engine's own data root and the
// socket the provider reaches it through.
func forbiddenOn(facts engine.Facts, socket string) []string {
	forbidden := slices.Clone(handsOverTheHost)
	for _, p := range []string{facts.DataRoot, socket} {
		if p != "" {
			forbidden = append(forbidden, path.Clean(p))
		}
	}
	return forbidden
}

// hostPaths are the planned host path mounts, by target; the unknown ones
// are left for apply.
func hostPaths(m mountsModel) (map[string]string, diag.Diagnostics) {
	entries, diags := m.entries()
	out := map[string]string{}
	for target, e := range entries {
		if !e.HostPath.IsNull() && !e.HostPath.IsUnknown() {
			out[target] = e.HostPath.ValueString()
		}
	}
	return out, diags
}

// validateHostPaths refuses host paths without the opt-in, and those that
// hand the host over whatever the engine.
func (m mountsModel) validateHostPaths() diag.Diagnostics {
	paths, diags := hostPaths(m)
	for _, target := range slices.Sorted(maps.Keys(paths)) {
		at := pathattr.Root("mounts").AtMapKey(target).AtName("host_path")
		if problem := hostPathProblem(paths[target], handsOverTheHost); problem != "" {
			diags.AddAttributeError(at, "Host path hands over the host", fmt.Sprintf("The host path %s cannot be "+
				"mounted into a sandbox, whatever allow_host_paths says: %s. Mount a directory of its own, or a "+
				"sandbox_volume.", paths[target], problem))
		} else if !m.AllowHostPaths.ValueBool() && !m.AllowHostPaths.IsUnknown() {
			diags.AddAttributeError(at, "Host paths not allowed", fmt.Sprintf("Attribute mounts[%q] mounts the "+
				"host path %s, which hands part of the engine's host to the sandbox. Set allow_host_paths = true "+
				"to allow it (read-only unless read_only = false), or mount a sandbox_volume.", target, paths[target]))
		}
	}
	return diags
}

// refuseHostPaths refuses, at plan, host paths on an engine whose host the
// provider cannot look at, and those that lead through the host's symbolic
// links, or to the engine's own data or socket, to what hands it over.
func (r *Resource) refuseHostPaths(m mountsModel, facts engine.Facts, host engine.HostPaths, resp *resource.ModifyPlanResponse) {
	paths, diags := hostPaths(m)
	if resp.Diagnostics.Append(diags...); len(paths) == 0 {
		return
	}
	socket, local := host.LocalSocket()
	forbidden := forbiddenOn(facts, socket)
	for _, target := range slices.Sorted(maps.Keys(paths)) {
		p, at := paths[target], pathattr.Root("mounts").AtMapKey(target).AtName("host_path")
		if !local {
			resp.Diagnostics.AddAttributeError(at, "Host path on a remote engine", fmt.Sprintf("The host path %s "+
				"is a path of the host of the engine at %s, not of the machine running Terraform, and the "+
				"provider cannot check there that it does not lead, through a symbolic link, to a path that "+
				"hands that host to the sandbox. Host paths are refused on remote engines: seed a "+
				"sandbox_volume from a local directory instead (its source travels through the engine's API).",
				p, r.Client.Endpoint()))
			continue
		}
		if problem := localHostPathProblem(p, forbidden); problem != "" {
			resp.Diagnostics.AddAttributeError(at, "Host path hands over the host", fmt.Sprintf("The host path %s "+
				"cannot be mounted into a sandbox on the engine at %s, whatever allow_host_paths says: %s. "+
				"Mount a directory of its own, or a sandbox_volume.", p, r.Client.Endpoint(), problem))
		}
	}
}

// localHostPathProblem checks a host path of this machine as it resolves
// through its symbolic links, and refuses a socket.
func localHostPathProblem(p string, forbidden []string) string {
	if problem := hostPathProblem(p, forbidden); problem != "" {
		return problem
	}
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		return fmt.Sprintf("it cannot be resolved on the engine's host (%v); create it first", err)
	}
	if resolved != p {
		if problem := hostPathProblem(resolved, forbidden); problem != "" {
			return fmt.Sprintf("it leads through symbolic links to %s, and %s", resolved, problem)
		}
	}
	info, err := os.Stat(resolved)
	switch {
	case err == nil && info.Mode()&fs.ModeSocket != 0:
		return "it is a socket"
	case err == nil && info.IsDir():
		return holdsTheHost(resolved)
	}
	return ""
}

// maxHostPathEntries bounds how much of a host directory the plan looks
// through for sockets.
const maxHostPathEntries = 100_000

// holdsTheHost says what inside the directory dir would hand the host to
// the sandbox, or "": the engine mounts dir with everything mounted under
// it (a recursive bind), so another filesystem mounted there, which may be
// any of the host's, and a socket anywhere in it (an engine's, bound there
// or not) are refused; so is a directory too large, or not readable enough,
// to look through.
func holdsTheHost(dir string) string {
	if mountinfo, err := os.ReadFile("/proc/self/mountinfo"); err == nil {
		if at := mountedUnder(string(mountinfo), dir); at != "" {
			return fmt.Sprintf("another filesystem is mounted at %s under it, and the sandbox would get it too", at)
		}
	}
	entries := 0
	var problem string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			problem = fmt.Sprintf("%s cannot be read to check it for sockets (%v)", p, err)
		case d.Type()&fs.ModeSocket != 0:
			problem = fmt.Sprintf("it holds the socket %s, which may hand an engine, and so the host, to the sandbox", p)
		case entries >= maxHostPathEntries:
			problem = fmt.Sprintf("it holds more than %d entries, too many to check for sockets; mount a smaller "+
				"directory", maxHostPathEntries)
		default:
			entries++
			return nil
		}
		return filepath.SkipAll
	})
	if err != nil && problem == "" {
		problem = fmt.Sprintf("it cannot be looked through (%v)", err)
	}
	return problem
}

// mountedUnder is the first mount point in mountinfo (/proc/self/mountinfo)
// strictly under dir, or "".
func mountedUnder(mountinfo, dir string) string {
	for _, line := range strings.Split(mountinfo, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 5 {
			continue
		}
		at := unescapeMountPath(fields[4])
		if at != dir && under(at, dir) {
			return at
		}
	}
	return ""
}

// unescapeMountPath undoes mountinfo's octal escapes (\040 for a space).
func unescapeMountPath(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// planHostPaths reads the planned mounts and refuses their host paths that
// the engine's host would hand over; all of them when the engine did not
// say where it keeps its data (factsErr), which they must not reach.
func (r *Resource) planHostPaths(ctx context.Context, facts engine.Facts, factsErr error, resp *resource.ModifyPlanResponse) {
	host, ok := r.Client.(engine.HostPaths)
	if !ok {
		return // the backend's rules refuse every host path
	}
	var m mountsModel
	if resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, pathattr.Root("mounts"), &m.Mounts)...); resp.Diagnostics.HasError() {
		return
	}
	if factsErr == nil {
		r.refuseHostPaths(m, facts, host, resp)
		return
	}
	paths, diags := hostPaths(m)
	resp.Diagnostics.Append(diags...)
	for _, target := range slices.Sorted(maps.Keys(paths)) {
		resp.Diagnostics.AddAttributeError(pathattr.Root("mounts").AtMapKey(target).AtName("host_path"),
			"Host path not checked", fmt.Sprintf("The engine at %s did not say where it keeps its data (%v), "+
				"which a host path must not reach, so the host path %s cannot be checked. Plan again when the "+
				"engine answers.", r.Client.Endpoint(), factsErr, paths[target]))
	}
}
