// Command clustertar is the floor of the cluster's snapshot rows of
// bench/run.sh: tar through a pod's exec stream, as `kubectl exec` runs it,
// with no provider. take makes a pod that mounts a claim read-only, streams
// `tar -cf -` of it to a file, and deletes the pod; restore makes a claim
// and a pod that mounts it, streams the file into `tar -xf -`, and deletes
// the pod; fill writes a claim's content through a pod. The pods run the
// given image in the given RuntimeClass, as the provider's helper pods do.
//
// take and restore print the seconds they took.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/streaming/pkg/httpstream"
)

type floor struct {
	cfg       *rest.Config
	core      *rest.RESTClient
	params    runtime.ParameterCodec
	namespace string
	image     string
	class     string
}

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig")
	namespace := flag.String("namespace", "default", "namespace")
	image := flag.String("image", "tfsandbox/busybox:latest", "image of the pods, present on the node, with tar")
	class := flag.String("runtime-class", "gvisor", "RuntimeClass of the pods")
	claim := flag.String("claim", "tfbench-snap", "the claim")
	file := flag.String("file", "", "the archive: take writes it, restore reads it")
	sizeMB := flag.Int("size-mb", 2048, "restore and fill: the size the claim asks for")
	mb := flag.Int("mb", 1024, "fill: MiB of random bytes")
	files := flag.Int("files", 10000, "fill: in that many files, in 100 directories")
	flag.Parse()
	f, err := newFloor(*kubeconfig, *namespace, *image, *class)
	if err == nil {
		ctx := context.Background()
		switch flag.Arg(0) {
		case "fill":
			err = f.fill(ctx, *claim, *sizeMB, *mb, *files)
		case "take", "restore":
			var took time.Duration
			if took, err = f.timed(ctx, flag.Arg(0), *claim, *file, *sizeMB); err == nil {
				fmt.Printf("%.3f\n", took.Seconds())
			}
		case "delete":
			err = f.deleteClaim(ctx, *claim)
		default:
			err = fmt.Errorf("say fill, take, restore or delete, not %q", flag.Arg(0))
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "clustertar:", err)
		os.Exit(1)
	}
}

func newFloor(kubeconfig, namespace, image, class string) (*floor, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	s := runtime.NewScheme()
	_ = corev1.AddToScheme(s)
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	c := rest.CopyConfig(cfg)
	c.GroupVersion, c.APIPath = &corev1.SchemeGroupVersion, "/api"
	c.NegotiatedSerializer = serializer.NewCodecFactory(s).WithoutConversion()
	core, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, err
	}
	return &floor{cfg: cfg, core: core, params: runtime.NewParameterCodec(s), namespace: namespace, image: image,
		class: class}, nil
}

// timed is take or restore, from the pod's create to its deletion.
func (f *floor) timed(ctx context.Context, phase, claim, file string, sizeMB int) (time.Duration, error) {
	start := time.Now()
	if phase == "restore" {
		if err := f.makeClaim(ctx, claim, sizeMB); err != nil {
			return 0, err
		}
	}
	pod, err := f.startPod(ctx, claim, phase == "take")
	if err != nil {
		return 0, err
	}
	if phase == "take" {
		var out *os.File
		if out, err = os.Create(file); err == nil {
			err = f.exec(ctx, pod, []string{"tar", "-cf", "-", "-C", "/v", "."}, nil, out)
			err = errors.Join(err, out.Close())
		}
	} else {
		var in *os.File
		if in, err = os.Open(file); err == nil {
			err = f.exec(ctx, pod, []string{"tar", "-xf", "-", "-C", "/v"}, in, io.Discard)
			_ = in.Close()
		}
	}
	err = errors.Join(err, f.deletePod(ctx, pod))
	return time.Since(start), err
}

// fill makes the claim and writes mb MiB of random bytes into it, in files
// files in 100 directories, through a pod.
func (f *floor) fill(ctx context.Context, claim string, sizeMB, mb, files int) error {
	if err := f.makeClaim(ctx, claim, sizeMB); err != nil {
		return err
	}
	pod, err := f.startPod(ctx, claim, false)
	if err != nil {
		return err
	}
	script := fmt.Sprintf(`per=$(( %d * 1048576 / %d )); i=0
while [ $i -lt %d ]; do d=/v/d$((i %% 100)); mkdir -p $d; head -c $per /dev/urandom > $d/f$i; i=$((i + 1)); done`,
		mb, files, files)
	err = f.exec(ctx, pod, []string{"sh", "-c", script}, nil, io.Discard)
	return errors.Join(err, f.deletePod(ctx, pod))
}

func (f *floor) makeClaim(ctx context.Context, name string, sizeMB int) error {
	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.namespace},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: resource.MustParse(fmt.Sprintf("%dMi", sizeMB))}},
		},
	}
	return f.core.Post().Namespace(f.namespace).Resource("persistentvolumeclaims").Body(claim).Do(ctx).Error()
}

func (f *floor) deleteClaim(ctx context.Context, name string) error {
	return f.core.Delete().Namespace(f.namespace).Resource("persistentvolumeclaims").Name(name).Do(ctx).Error()
}

// startPod makes a pod that mounts the claim at /v and waits until it
// runs.
func (f *floor) startPod(ctx context.Context, claim string, readOnly bool) (string, error) {
	name := fmt.Sprintf("tfbench-tar-%d", time.Now().UnixNano())
	no := false
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.namespace},
		Spec: corev1.PodSpec{
			RuntimeClassName:             &f.class,
			AutomountServiceAccountToken: &no,
			RestartPolicy:                corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "tar", Image: f.image, ImagePullPolicy: corev1.PullNever,
				Command:      []string{"sleep", "3600"},
				VolumeMounts: []corev1.VolumeMount{{Name: "v", MountPath: "/v", ReadOnly: readOnly}}}},
			Volumes: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim, ReadOnly: readOnly}}}},
		},
	}
	if err := f.core.Post().Namespace(f.namespace).Resource("pods").Body(pod).Do(ctx).Error(); err != nil {
		return "", err
	}
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		var seen corev1.Pod
		if err := f.core.Get().Namespace(f.namespace).Resource("pods").Name(name).Do(ctx).Into(&seen); err != nil {
			return name, err
		}
		if seen.Status.Phase == corev1.PodRunning {
			return name, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return name, fmt.Errorf("the pod %s did not run within 5 minutes", name)
}

// deletePod deletes the pod at once and waits until it is gone.
func (f *floor) deletePod(ctx context.Context, name string) error {
	zero := int64(0)
	err := f.core.Delete().Namespace(f.namespace).Resource("pods").Name(name).
		Body(&metav1.DeleteOptions{GracePeriodSeconds: &zero}).Do(ctx).Error()
	for err == nil {
		err = f.core.Get().Namespace(f.namespace).Resource("pods").Name(name).Do(ctx).Error()
		time.Sleep(50 * time.Millisecond)
	}
	if strings.Contains(err.Error(), "not found") {
		return nil
	}
	return err
}

// exec runs command in the pod with stdin and stdout streamed, as kubectl
// exec does (WebSocket, or SPDY where the server has no WebSocket).
func (f *floor) exec(ctx context.Context, pod string, command []string, stdin io.Reader, stdout io.Writer) error {
	url := f.core.Post().Namespace(f.namespace).Resource("pods").Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: "tar", Command: command, Stdin: stdin != nil,
			Stdout: true, Stderr: true}, f.params).URL()
	ws, err := remotecommand.NewWebSocketExecutor(f.cfg, "GET", url.String())
	if err != nil {
		return err
	}
	spdy, err := remotecommand.NewSPDYExecutor(f.cfg, "POST", url)
	if err != nil {
		return err
	}
	exec, err := remotecommand.NewFallbackExecutor(ws, spdy, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
	if err != nil {
		return err
	}
	var stderr strings.Builder
	err = exec.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: stdin, Stdout: stdout, Stderr: &stderr})
	if err != nil {
		return fmt.Errorf("%w: %s", err, stderr.String())
	}
	return nil
}
