package kube

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tfsandbox/terraform-provider-sandbox/internal/engine"
)

// A sandbox_volume on a cluster is a PersistentVolumeClaim of the same
// name in the namespace, of the cluster's default StorageClass, which a
// sandbox's pod mounts by claim (spec.go's workspaceVolumes). What the
// claim holds outlives every pod that mounts it, so a sandbox's workspace
// survives its replacement as it does on Docker. The claim carries the
// provider's labels and its create token; as for a pod, those prove the
// provider made it only where the API server recorded the provider as
// their field manager (provenance.go), so a copy of the claim made by hand
// is never taken for the provider's, nor removed.

// claimsResource is the API's name for claims.
const claimsResource = "persistentvolumeclaims"

// CreateVolume makes the claim, asking for spec.Size bytes (the plan
// refuses a volume on a cluster without one), and returns it as the
// engine's data about a volume. A claim of that name, whoever made it, is
// refused and left as it is.
func (c *Client) CreateVolume(ctx context.Context, spec engine.VolumeSpec) (engine.Volume, error) {
	if err := engine.Refused(c.RefuseVolume(ctx, engine.PlannedVolume{Spec: spec})); err != nil {
		return engine.Volume{}, err
	}
	ctx, cancel := engine.Uncancelled(ctx)
	defer cancel()
	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: spec.Name, Namespace: c.namespace, Labels: spec.Labels},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: *resource.NewQuantity(spec.Size, resource.BinarySI),
			}},
		},
	}
	made := &corev1.PersistentVolumeClaim{}
	err := c.create(ctx, c.core, claimsResource, claim, made)
	if engine.IsConflict(err) {
		held, getErr := c.getClaim(ctx, spec.Name)
		if getErr == nil && held.DeletionTimestamp != nil {
			return engine.Volume{}, c.claimBeingRemoved(ctx, spec.Name)
		}
		return engine.Volume{}, &engine.VolumeNameTakenError{Name: spec.Name,
			Managed: getErr == nil && engine.ManagedBy(volumeOf(held).Labels)}
	}
	if err != nil {
		return engine.Volume{}, err
	}
	return volumeOf(made), nil
}

// claimBeingRemoved says why a claim removed out of band is still there:
// the cluster keeps a claim until no pod mounts it.
func (c *Client) claimBeingRemoved(ctx context.Context, name string) error {
	pods, _ := c.podsMounting(ctx, name)
	mounting := "none left"
	if len(pods) > 0 {
		mounting = strings.Join(pods, ", ")
	}
	return conflict{fmt.Errorf("the persistent volume claim %s/%s is being removed, and the cluster keeps it "+
		"until no pod mounts it (pods that mount it: %s): replace the sandboxes among them (terraform apply "+
		"-replace=ADDRESS), which makes them mount the new, empty volume",
		c.namespace, name, mounting)}
}

// getClaim reads a claim by name.
func (c *Client) getClaim(ctx context.Context, name string) (*corev1.PersistentVolumeClaim, error) {
	claim := &corev1.PersistentVolumeClaim{}
	err := c.call(ctx, "the request to read a persistent volume claim", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.core.Get().Namespace(c.namespace).Resource(claimsResource).Name(name).Do(ctx).Into(claim)
	})
	return claim, err
}

// InspectVolume reads the claim of that name as the engine's data about a
// volume. A claim being removed is gone; one whose provider labels the
// provider did not write shows none of them.
func (c *Client) InspectVolume(ctx context.Context, name string) (engine.Volume, error) {
	claim, err := c.getClaim(ctx, name)
	if err != nil {
		return engine.Volume{}, err
	}
	if claim.DeletionTimestamp != nil {
		return engine.Volume{}, notFound{fmt.Errorf("persistent volume claim %s/%s is being removed", c.namespace, name)}
	}
	return volumeOf(claim), nil
}

// ManagedVolumes lists the claims in the namespace that carry the
// provider's ownership label, selected by the API server, as the engine's
// data about volumes: a claim whose labels the provider did not write
// shows none of its labels (volumeOf), so it is left out; so are claims
// being removed, those whose labels lack labels, and those whose name does
// not start with namePrefix.
func (c *Client) ManagedVolumes(ctx context.Context, labels map[string]string, namePrefix string) ([]engine.Volume, error) {
	list := &corev1.PersistentVolumeClaimList{}
	err := c.call(ctx, "the request to list persistent volume claims", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.core.Get().Namespace(c.namespace).Resource(claimsResource).
			VersionedParams(&metav1.ListOptions{LabelSelector: engine.LabelManagedBy + "=" + engine.ManagedByValue},
				c.params).Do(ctx).Into(list)
	})
	if err != nil {
		return nil, err
	}
	var out []engine.Volume
	for i := range list.Items {
		claim := &list.Items[i]
		v := volumeOf(claim)
		keep := claim.DeletionTimestamp == nil && strings.HasPrefix(claim.Name, namePrefix) && engine.ManagedBy(v.Labels)
		for k, want := range labels {
			keep = keep && v.Labels[k] == want
		}
		if keep {
			out = append(out, v)
		}
	}
	return out, nil
}

// volumeOf is the claim in the shape of the engine's data about a volume:
// its labels (the provider's only where the provider wrote them), and its
// size in the options as a disk volume's bound is.
func volumeOf(claim *corev1.PersistentVolumeClaim) engine.Volume {
	labels := map[string]string{}
	written := labelsWrittenByProvider(claim.ManagedFields)
	for k, v := range claim.Labels {
		if written || !engine.IsProviderLabel(k) {
			labels[k] = v
		}
	}
	v := engine.Volume{
		Name: claim.Name, Driver: "kubernetes", Labels: labels,
		CreatedAt: claim.CreationTimestamp.UTC().Format(time.RFC3339), Options: map[string]string{},
	}
	if q, ok := claim.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
		v.Options["size"] = strconv.FormatInt(q.Value(), 10)
	}
	return v
}

// RemoveVolume removes the claim the provider created with the create
// token, and waits until the cluster has. A claim of that name that the
// token does not prove is left, and is not an error. A claim that pods
// mount is refused with a *VolumeInUseError: the cluster would keep it,
// being removed, until they were gone.
func (c *Client) RemoveVolume(ctx context.Context, name, token string) error {
	claim, err := c.getClaim(ctx, name)
	if engine.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !engine.VolumeMadeWith(volumeOf(claim), token) {
		return nil
	}
	pods, err := c.podsMounting(ctx, name)
	if err != nil {
		return err
	}
	if len(pods) > 0 {
		return &engine.VolumeInUseError{Name: name, Containers: pods}
	}
	if claim.DeletionTimestamp == nil {
		err = c.call(ctx, "the request to remove a persistent volume claim", engine.SlowCallTimeout, func(ctx context.Context) error {
			return c.core.Delete().Namespace(c.namespace).Resource(claimsResource).Name(name).
				Body(deleteOptions(claim.UID, 0)).Do(ctx).Error()
		})
		if engine.IsNotFound(err) || engine.IsConflict(err) {
			return nil // gone, or another claim has the name since
		}
		if err != nil {
			return err
		}
	}
	return waitGone(ctx, "persistent volume claim "+c.namespace+"/"+name, engine.SlowCallTimeout,
		func(ctx context.Context) bool {
			held, err := c.getClaim(ctx, name)
			return engine.IsNotFound(err) || (err == nil && held.UID != claim.UID)
		})
}

// VolumeUsers lists the pods of the namespace, whoever made them, that
// mount the claim, sorted by name.
func (c *Client) VolumeUsers(ctx context.Context, name string) ([]engine.VolumeUser, error) {
	list := &corev1.PodList{}
	err := c.call(ctx, "the request to list pods", engine.QuickCallTimeout, func(ctx context.Context) error {
		return c.core.Get().Namespace(c.namespace).Resource("pods").Do(ctx).Into(list)
	})
	if err != nil {
		return nil, err
	}
	var users []engine.VolumeUser
	for i := range list.Items {
		pod := &list.Items[i]
		if u, ok := claimUser(pod, name); ok {
			users = append(users, u)
		}
	}
	slices.SortFunc(users, func(a, b engine.VolumeUser) int { return strings.Compare(a.Container, b.Container) })
	return users, nil
}

// podsMounting names the pods that mount the claim.
func (c *Client) podsMounting(ctx context.Context, name string) ([]string, error) {
	users, err := c.VolumeUsers(ctx, name)
	pods := make([]string, 0, len(users))
	for _, u := range users {
		pods = append(pods, u.Container)
	}
	return pods, err
}

// claimUser is the pod as a user of the claim, when it mounts it.
func claimUser(pod *corev1.Pod, claim string) (engine.VolumeUser, bool) {
	u := engine.VolumeUser{Container: pod.Name, ID: podID(pod), Running: pod.Status.Phase == corev1.PodRunning}
	found := false
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != claim {
			continue
		}
		found = true
		for _, ctr := range pod.Spec.Containers {
			for _, m := range ctr.VolumeMounts {
				if m.Name == v.Name {
					u.Target = m.MountPath
					u.Writable = u.Writable || (!m.ReadOnly && !v.PersistentVolumeClaim.ReadOnly)
				}
			}
		}
	}
	return u, found
}
