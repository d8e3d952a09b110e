package acctest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
)

// TaintNodes puts a NoSchedule taint with key on every node of the test
// cluster, as a node that is not ready yet carries one, so that the
// scheduler places no new pod; it returns the function that takes the
// taint away again, which the test's cleanup also calls. Pods of other
// tests made meanwhile wait, as the provider's do, so the taint must be
// short.
func TaintNodes(t *testing.T, key string) func() {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := changeTaints(ctx, t, func(taints []corev1.Taint) []corev1.Taint {
		return append(removeTaint(taints, key), corev1.Taint{Key: key, Effect: corev1.TaintEffectNoSchedule})
	}); err != nil {
		t.Fatalf("tainting the cluster's nodes: %v", err)
	}
	untaint := func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := changeTaints(ctx, t, func(taints []corev1.Taint) []corev1.Taint { return removeTaint(taints, key) }); err != nil {
			t.Errorf("taking the taint %s off the cluster's nodes: %v", key, err)
		}
	}
	t.Cleanup(untaint)
	return untaint
}

func removeTaint(taints []corev1.Taint, key string) []corev1.Taint {
	return slices.DeleteFunc(slices.Clone(taints), func(taint corev1.Taint) bool { return taint.Key == key })
}

// changeTaints sets each node's taints to change(its taints), with the
// node's resourceVersion as the precondition: the node lifecycle controller
// changes taints too. A conflict (the kubelet's status updates change the
// version) is tried again.
func changeTaints(ctx context.Context, t *testing.T, change func([]corev1.Taint) []corev1.Taint) error {
	core, _ := Cluster(t).API()
	var nodes corev1.NodeList
	if err := core.Get().Resource("nodes").Do(ctx).Into(&nodes); err != nil {
		return err
	}
	for _, node := range nodes.Items {
		for {
			// No taints left marshals as null, which removes the field.
			patch, err := json.Marshal(map[string]any{
				"metadata": map[string]any{"resourceVersion": node.ResourceVersion},
				"spec":     map[string]any{"taints": change(node.Spec.Taints)},
			})
			if err != nil {
				return err
			}
			err = core.Patch(types.MergePatchType).Resource("nodes").Name(node.Name).
				Param("fieldManager", TestFieldManager).Body(patch).Do(ctx).Error()
			if !apierrors.IsConflict(err) {
				if err != nil {
					return fmt.Errorf("node %s: %w", node.Name, err)
				}
				break
			}
			if err := core.Get().Resource("nodes").Name(node.Name).Do(ctx).Into(&node); err != nil {
				return err
			}
		}
	}
	return nil
}
