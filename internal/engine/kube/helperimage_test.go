package kube

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestAnyNodeHasTheHelperByDigest(t *testing.T) {
	_, digest, _ := strings.Cut(DefaultHelperImage, "@")
	node := func(names ...string) corev1.Node {
		return corev1.Node{Status: corev1.NodeStatus{Images: []corev1.ContainerImage{{Names: names}}}}
	}
	for name, c := range map[string]struct {
		nodes []corev1.Node
		want  bool
	}{
		"pulled by digest": {[]corev1.Node{node("docker.io/library/busybox@"+digest, "docker.io/library/busybox:1.37")}, true},
		"on the second node": {[]corev1.Node{node("registry.k8s.io/pause:3.10"),
			node("docker.io/library/busybox@" + digest)}, true},
		"the tag only, which may name another image": {[]corev1.Node{node("docker.io/library/busybox:1.37")}, false},
		"another digest": {[]corev1.Node{node("docker.io/library/busybox@sha256:00")}, false},
		"no nodes":       {nil, false},
	} {
		if got := anyNodeHas(c.nodes, DefaultHelperImage); got != c.want {
			t.Errorf("%s: anyNodeHas = %v, want %v", name, got, c.want)
		}
	}
	if anyNodeHas([]corev1.Node{node("busybox:1.37")}, "busybox:1.37") {
		t.Error("a reference without a digest is found on a node")
	}
}
