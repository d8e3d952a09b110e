package cli

import (
	"strings"
	"testing"
)

func TestSavesFailedCreates(t *testing.T) {
	t.Parallel()
	for reported, want := range map[string]bool{
		"1.11.4":        true,
		"1.13.3":        true,
		"1.14.0-beta1":  true, // before 1.14.0
		"1.14.0":        false,
		"1.16.4":        false,
		"1.17.0":        false,
		"":              true,
		"not a version": true,
	} {
		if got := New(reported).SavesFailedCreates(); got != want {
			t.Errorf("New(%q).SavesFailedCreates() = %v, want %v", reported, got, want)
		}
	}
	if got := New("1.16.4").String(); got != "Terraform 1.16.4" {
		t.Errorf("String() = %q", got)
	}
	if got := New("").String(); got != "this Terraform" {
		t.Errorf("String() of an unknown version = %q", got)
	}
	if got, want := New("1.16.4").NotSaved("volume"), "Terraform 1.16.4 cannot record a failed create"; !strings.HasPrefix(got, want) ||
		!strings.Contains(got, "the volume is not recorded") {
		t.Errorf("NotSaved = %q", got)
	}
}
