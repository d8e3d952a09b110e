package values

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestKeepIfEqual(t *testing.T) {
	t.Parallel()
	held := StringSet([]string{"b", "a"})
	for name, c := range map[string]struct {
		held, observed, want types.Set
	}{
		"same elements in another order keep the held value": {held, StringSet([]string{"a", "b"}), held},
		"null held and null observed stay null":              {types.SetNull(types.StringType), StringSetOrNull(nil), types.SetNull(types.StringType)},
		"a widened value is observed":                        {held, StringSet([]string{"a", "b", "c"}), StringSet([]string{"a", "b", "c"})},
		"unknown held takes the observed value":              {types.SetUnknown(types.StringType), held, held},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := KeepIfEqual(c.held, c.observed); !got.Equal(c.want) {
				t.Errorf("KeepIfEqual(%v, %v) = %v, want %v", c.held, c.observed, got, c.want)
			}
		})
	}
}

func TestEmptyIsNull(t *testing.T) {
	t.Parallel()
	if !StringList(nil).IsNull() || !StringMap(map[string]string{}).IsNull() || !StringSetOrNull(nil).IsNull() {
		t.Error("an empty list, map or set must be null")
	}
	if StringSet(nil).IsNull() {
		t.Error("StringSet of nothing must be an empty set, not null")
	}
	if got := SetStrings(StringSet([]string{"b", "a"})); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("SetStrings = %v, want [a b]", got)
	}
	if SetStrings(types.SetUnknown(types.StringType)) != nil {
		t.Error("SetStrings of an unknown set must be nil")
	}
	if !Int64OrNull(0).IsNull() || !Int64OrNull(-1).IsNull() || Int64OrNull(3).ValueInt64() != 3 {
		t.Error("Int64OrNull: zero and negative are null, positive is kept")
	}
}

func TestSecretsRedactEveryOccurrenceLongestFirst(t *testing.T) {
	var s Secrets
	s.Add("abc", "token-1234", "1234", "")
	got := s.Redact("sent token-1234, then 1234 and abc")
	if want := "sent (sensitive value), then (sensitive value) and abc"; got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
}
