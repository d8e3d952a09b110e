package engine

import "time"

// A sandbox's expiry: the moment its backend stops it, whether or not a
// Terraform command runs then, whatever the code inside it does. A
// cluster sets the pod's activeDeadlineSeconds, which the kubelet
// enforces. The sandbox stops and its workspace is kept; it is expired
// once it stopped at or after that moment, and stays stopped until the
// expiry changes.

// LabelExpiresAt records a sandbox's expiry, in RFC 3339, on what the
// backend keeps of it (a pod's annotations).
const LabelExpiresAt = LabelPrefix + "expires-at"

// LabelCreatedAt records when the provider began making a sandbox, in RFC
// 3339: what its expires_after counts from.
const LabelCreatedAt = LabelPrefix + "created-at"

// ExpiryOf is the expiry that labels (or annotations) record; zero for
// none.
func ExpiryOf(labels map[string]string) time.Time {
	t, err := time.Parse(time.RFC3339, labels[LabelExpiresAt])
	if err != nil {
		return time.Time{}
	}
	return t
}

// Expired reports whether c is expired at now: it has an expiry, the
// expiry has passed, and it does not run.
func Expired(c Sandbox, now time.Time) bool {
	return !c.ExpiresAt.IsZero() && !now.Before(c.ExpiresAt) && StateOf(c) != StateRunning
}

// DeadlineSeconds is the whole seconds from now to expiresAt, rounded up,
// and at least 1: what a pod made now is given as activeDeadlineSeconds.
func DeadlineSeconds(expiresAt, now time.Time) int64 {
	left := expiresAt.Sub(now)
	seconds := int64(left / time.Second)
	if left%time.Second > 0 {
		seconds++
	}
	return max(seconds, 1)
}
