package values

import (
	"slices"
	"strings"
)

// MinSecretLength is the length below which a value is not redacted: the
// provider cannot see which configured values Terraform holds as
// sensitive, so it redacts the values of its own sensitive and write-only
// attributes wherever they appear, and one or two characters would blank
// out ordinary words of a message without hiding anything worth hiding.
const MinSecretLength = 4

// Redacted is how a redacted secret reads in a message.
const Redacted = "(sensitive value)"

// Secrets are configured values that no diagnostic or log line may show.
type Secrets []string

// Add adds values, skipping those too short to redact.
func (s *Secrets) Add(values ...string) {
	for _, v := range values {
		if len(v) >= MinSecretLength {
			*s = append(*s, v)
		}
	}
}

// Redact replaces every secret in text, the longest first (so that a
// secret inside another does not leave part of the other showing).
func (s Secrets) Redact(text string) string {
	sorted := slices.SortedFunc(slices.Values(s), func(a, b string) int { return len(b) - len(a) })
	for _, secret := range sorted {
		text = strings.ReplaceAll(text, secret, Redacted)
	}
	return text
}
