package kube

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// A sandbox's image from a private registry: the provider's credentials
// for the registry (registry_auth) go into an image pull secret of its
// own, made before the pod and owned by it like the sandbox's Secret, so
// that the cluster removes it with the pod; the secrets kubernetes.
// image_pull_secrets names are the pod's as well.

// UseRegistries gives the client the provider's registry credentials.
func (c *Client) UseRegistries(r engine.Registries) { c.registries = r }

// pullSecretName is the image pull secret made for the create with token.
func pullSecretName(token string) string { return companionName(token) + "-pull" }

// pullSecret is the image pull secret for the sandbox's image, or nil when
// the provider has no credentials for its registry.
func (c *Client) pullSecret(pod *corev1.Pod, token, image string) (*corev1.Secret, error) {
	if c.registries == nil {
		return nil, nil
	}
	host, err := engine.RegistryHost(image)
	if err != nil {
		return nil, invalid{err}
	}
	auth, ok, err := c.registries.For(host)
	if err != nil || !ok {
		return nil, err
	}
	if auth.Password == "" {
		return nil, invalid{fmt.Errorf("%s gives an identity token for %s, which a cluster's nodes cannot pull "+
			"with: give that entry a username and password (or an access token as the password)", auth.Setting, host)}
	}
	config, err := json.Marshal(map[string]any{"auths": map[string]any{host: map[string]string{
		"username": auth.Username, "password": auth.Password,
		"auth": base64.StdEncoding.EncodeToString([]byte(auth.Username + ":" + auth.Password)),
	}}})
	if err != nil {
		return nil, err
	}
	meta := companionMeta(pod, token)
	meta.Name = pullSecretName(token)
	return &corev1.Secret{ObjectMeta: meta, Type: corev1.SecretTypeDockerConfigJson,
		Data: map[string][]byte{corev1.DockerConfigJsonKey: config}}, nil
}

// pullRefused is the registry's refusal of the pod's image for its
// credentials (why is the kubelet's waiting reason and message), or nil.
func (c *Client) pullRefused(pod *corev1.Pod, why string) error {
	if !strings.HasPrefix(why, "ErrImagePull") && !strings.HasPrefix(why, "ImagePullBackOff") ||
		!engine.CredentialsRefused(nil, why) || len(pod.Spec.Containers) == 0 {
		return nil
	}
	host, hostErr := engine.RegistryHost(pod.Spec.Containers[0].Image)
	if hostErr != nil { // the pod's image was read once already; the kubelet's words stand
		return fmt.Errorf("%w: %s", engine.ErrNoAuth, why)
	}
	refused := &engine.RegistryAuthError{Host: host, Err: fmt.Errorf("%w: %s", engine.ErrNoAuth, why)}
	if c.registries != nil {
		if auth, ok, err := c.registries.For(host); err == nil && ok {
			refused.Auth = auth
		}
	}
	return refused
}

// secretsMissed is the reason of the kubelet's event for a pod whose image
// pull secrets it could not read. Its cache of a Secret it has not watched
// before gets a second to fill; on a loaded cluster that is too short, and
// the kubelet then pulls with no credentials, says so in this event, and
// pulls again after a back-off (ten seconds at first), reading them again.
const secretsMissed = "FailedToRetrieveImagePullSecret"

// pulledWithoutSecrets reports whether the kubelet's last pull of the
// pod's image may have gone without its image pull secrets (so that a
// refusal of it does not judge them). Events the provider may not read
// say nothing: the refusal stands.
func (c *Client) pulledWithoutSecrets(ctx context.Context, pod *corev1.Pod) bool {
	if len(pod.Spec.ImagePullSecrets) == 0 {
		return false
	}
	events := &corev1.EventList{}
	err := c.call(ctx, "the request to list a pod's events", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.core.Get().Namespace(pod.Namespace).Resource("events").
			Param("fieldSelector", "involvedObject.uid="+string(pod.UID)).Do(ctx).Into(events)
	})
	return err == nil && secretsMissedLast(events.Items)
}

// secretsMissedLast reports whether a pod's events say that the kubelet
// could not read its pull secrets as often as it pulled its image: it
// reads them before each pull and says so before it says it pulls, in
// that order, so a pull it has announced since then had them.
func secretsMissedLast(events []corev1.Event) bool {
	var missed, pulls int32
	for _, e := range events {
		n := max(e.Count, 1) // an event the kubelet repeated is counted once, with its count
		switch e.Reason {
		case secretsMissed:
			missed += n
		case "Pulling":
			pulls += n
		}
	}
	return missed > 0 && missed >= pulls
}

// makeSecrets makes the Secrets of a sandbox, before what then owns them:
// its image pull secret, when the provider has credentials for its image's
// registry (named in pod), and the Secret of its write-only environment
// and files. It returns their names; none are left when it fails.
func (c *Client) makeSecrets(ctx context.Context, pod *corev1.Pod, spec engine.ContainerSpec) ([]string, error) {
	token := spec.Labels[engine.LabelCreateToken]
	var secrets []string
	pull, err := c.pullSecret(pod, token, spec.Image)
	if err != nil {
		return nil, err
	}
	for _, name := range c.pullSecrets {
		pod.Spec.ImagePullSecrets = append(pod.Spec.ImagePullSecrets, corev1.LocalObjectReference{Name: name})
	}
	if pull != nil {
		pod.Spec.ImagePullSecrets = append(pod.Spec.ImagePullSecrets, corev1.LocalObjectReference{Name: pull.Name})
		if err := c.create(ctx, c.core, "secrets", pull, &corev1.Secret{}); err != nil {
			return nil, err
		}
		secrets = append(secrets, pull.Name)
	}
	if needsSecret(spec) {
		s := &corev1.Secret{ObjectMeta: companionMeta(pod, token), Data: secretData(spec), Type: corev1.SecretTypeOpaque}
		if err := c.create(ctx, c.core, "secrets", s, &corev1.Secret{}); err != nil {
			c.removeCompanions(ctx, token, secrets)
			return nil, err
		}
		secrets = append(secrets, s.Name)
	}
	return secrets, nil
}
