package acctest

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/registry"
	"github.com/docker/docker/pkg/jsonmessage"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// The private registry the test set-up starts (scripts/engines.sh start
// registry): 127.0.0.1, with a generated user and password.

// Registry is the test registry: its host, user and password.
type Registry struct{ Host, User, Password string }

// PrivateRegistry is the test registry; the test skips where the set-up
// started none.
func PrivateRegistry(t *testing.T) Registry {
	t.Helper()
	RequireAcc(t)
	r := Registry{Host: os.Getenv("SANDBOX_TEST_REGISTRY"), User: os.Getenv("SANDBOX_TEST_REGISTRY_USER"),
		Password: os.Getenv("SANDBOX_TEST_REGISTRY_PASSWORD")}
	if r.Host == "" || r.Password == "" {
		t.Skip("a private registry's test: scripts/testacc.sh starts the registry (SANDBOX_TEST_REGISTRY)")
	}
	return r
}

// PushPrivate pushes the test image to the registry under a tag of the
// test's own, through the engine under test, and removes the tag from the
// engine: a sandbox of the returned reference must pull it, with the
// registry's credentials. The engine's image is the same: nothing new is
// stored but the tag.
func (r Registry) PushPrivate(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	api := Docker(t)
	ref := fmt.Sprintf("%s/private/busybox:%s", r.Host, Name(t))
	if err := api.ImageTag(ctx, TestImage, ref); err != nil {
		t.Fatalf("tagging the test image as %s: %v", ref, err)
	}
	auth, err := registry.EncodeAuthConfig(registry.AuthConfig{Username: r.User, Password: r.Password,
		ServerAddress: r.Host})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := api.ImagePush(ctx, ref, image.PushOptions{RegistryAuth: auth})
	if err == nil {
		err = jsonmessage.DisplayJSONMessagesStream(rc, io.Discard, 0, false, nil)
		_ = rc.Close()
	}
	if err != nil {
		t.Fatalf("pushing %s to the test registry: %v", ref, err)
	}
	r.Forget(t, ref)
	t.Cleanup(func() { r.Forget(t, ref) })
	return ref
}

// Forget removes the tag ref from the engine under test (the image stays,
// under its other names), so that the next sandbox of it pulls it.
func (r Registry) Forget(t *testing.T, ref string) {
	t.Helper()
	_, _ = Docker(t).ImageRemove(context.Background(), ref, image.RemoveOptions{})
}

// PodPullSecret checks the image pull secret the provider made for pod: the
// pod names it, the pod owns it, and it is a Docker config for host. It
// returns its name.
func PodPullSecret(ctx context.Context, t *testing.T, pod *corev1.Pod, host string) (string, error) {
	t.Helper()
	if len(pod.Spec.ImagePullSecrets) != 1 {
		return "", fmt.Errorf("pod %s names %d image pull secrets, want 1", pod.Name, len(pod.Spec.ImagePullSecrets))
	}
	name := pod.Spec.ImagePullSecrets[0].Name
	core, _ := Cluster(t).API()
	s := &corev1.Secret{}
	if err := core.Get().Namespace(pod.Namespace).Resource("secrets").Name(name).Do(ctx).Into(s); err != nil {
		return "", fmt.Errorf("reading the pull secret %s: %w", name, err)
	}
	if s.Type != corev1.SecretTypeDockerConfigJson || !strings.Contains(string(s.Data[corev1.DockerConfigJsonKey]), `"`+host+`"`) {
		return "", fmt.Errorf("the pull secret %s is a %s, holding no credentials for %s", name, s.Type, host)
	}
	if len(s.OwnerReferences) != 1 || s.OwnerReferences[0].UID != pod.UID {
		return "", fmt.Errorf("the pull secret %s is not owned by pod %s: %+v", name, pod.Name, s.OwnerReferences)
	}
	return name, nil
}

// ExpectSecretGone waits until the cluster has removed the secret (with its
// owner), for at most a minute.
func ExpectSecretGone(t *testing.T, name string) {
	t.Helper()
	core, _ := Cluster(t).API()
	deadline := time.Now().Add(time.Minute)
	for {
		err := core.Get().Namespace(ClusterNamespace).Resource("secrets").Name(name).Do(context.Background()).Error()
		if engine.IsNotFound(err) || apierrors.IsNotFound(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the secret %s is still there a minute after its pod was removed (%v)", name, err)
		}
		time.Sleep(time.Second)
	}
}
