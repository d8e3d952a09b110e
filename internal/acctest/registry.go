package acctest

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/registry"
	"github.com/docker/docker/pkg/jsonmessage"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// PushPrivate pushes an image of the test's own to the registry, through
// the engine under test, and removes it from the engine: a sandbox of the
// returned reference must pull it, with the registry's credentials. The
// image is the test image with a label naming the test, so that tests
// side by side never change the names of one image at once (Podman loses
// such changes), and shares its layers.
func (r Registry) PushPrivate(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	api := Docker(t)
	ref := fmt.Sprintf("%s/private/busybox:%s", r.Host, Name(t))
	if err := BuildByHand(ctx, api, fmt.Sprintf("FROM %s\nLABEL test.private=%q\n", TestImage, ref),
		build.ImageBuildOptions{Tags: []string{ref}}); err != nil {
		t.Fatal(err)
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

// Forget removes the image ref from the engine under test, so that the
// next sandbox of it pulls it.
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
		if apierrors.IsNotFound(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the secret %s is still there a minute after its pod was removed (%v)", name, err)
		}
		time.Sleep(time.Second)
	}
}

// PullSecretAfterRefusal makes the image pull secret secret, with the
// registry's credentials, in the test namespace once the pod pod's first
// pull has been refused for want of it, as an operator that syncs pull
// secrets into a namespace may make one late; it is removed when the test
// ends. The channel gives the outcome once the secret is made, or when no
// pod refused a pull within five minutes.
func (r Registry) PullSecretAfterRefusal(t *testing.T, pod, secret string) <-chan error {
	t.Helper()
	core, _ := Cluster(t).API()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	done := make(chan error, 1)
	t.Cleanup(func() {
		cancel()
		_ = core.Delete().Namespace(ClusterNamespace).Resource("secrets").Name(secret).Do(context.Background()).Error()
	})
	config := fmt.Sprintf(`{"auths":{%q:{"username":%q,"password":%q}}}`, r.Host, r.User, r.Password)
	go func() {
		for ctx.Err() == nil && !pullRefused(ctx, t, pod) {
			time.Sleep(200 * time.Millisecond)
		}
		if ctx.Err() != nil {
			done <- fmt.Errorf("pod %s's pull was not refused within five minutes", pod)
			return
		}
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: secret, Namespace: ClusterNamespace},
			Type: corev1.SecretTypeDockerConfigJson, Data: map[string][]byte{corev1.DockerConfigJsonKey: []byte(config)}}
		done <- core.Post().Namespace(ClusterNamespace).Resource("secrets").Body(s).Do(ctx).Error()
	}()
	return done
}

// pullRefused reports whether the pod's container waits for an image its
// node could not pull.
func pullRefused(ctx context.Context, t *testing.T, name string) bool {
	pod, err := Pod(ctx, t, name)
	if err != nil {
		return false
	}
	for _, s := range pod.Status.ContainerStatuses {
		if w := s.State.Waiting; w != nil && (w.Reason == "ErrImagePull" || w.Reason == "ImagePullBackOff") {
			return true
		}
	}
	return false
}
