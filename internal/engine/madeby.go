package engine

import (
	"time"
)

// What binds the provider's labels to the one object a create made, so
// that a copy of them is not taken for the provider's (labels.go says why
// labels alone prove nothing). A copy can carry every label, but not what
// the engine assigned to the original:
//
//   - a container: the engine's creation time. The provider makes one
//     container for each create token, and a copy of its labels can only
//     be made after it, so of the containers that carry a token only the
//     one the engine made first is the provider's (FirstMade). And the
//     label LabelMadeAt records the engine's time just before the create
//     was asked: a container the engine made outside that request's window
//     (MadeInWindow), such as one copied or recreated by hand later, is
//     not the provider's even once the original is gone.
//   - a volume: its name, which the engine keeps unique and never changes.
//     The label LabelMadeAs records the name the create gave it; a copy
//     made while the original exists has another (VolumeMadeWith).
//   - an image: its creation time, as for a container: of the images that
//     carry a build token, only the one built first (FirstMade).
//
// Someone who can use the engine's socket can still forge these on
// purpose (set LabelMadeAt to the time they create, or remove the
// original and make a copy under its name); what they guard against is
// copies, inheritance and mistakes.

// LabelMadeAt records on a container the engine's time, as the provider
// read it, just before it asked the engine to create it (RFC 3339, UTC).
const LabelMadeAt = LabelPrefix + "made-at"

// LabelMadeAs records on a volume the name its create gave it.
const LabelMadeAs = LabelPrefix + "made-as"

// madeSlack is how far the engine's creation time may lie before the time
// LabelMadeAt records, or after the end of the create's own deadline: the
// error of reading the engine's clock from the provider, and seconds the
// engine rounds a creation time to.
const madeSlack = 30 * time.Second

// MadeAt is the value of LabelMadeAt for a create asked at the engine's
// time now.
func MadeAt(now time.Time) string { return now.UTC().Format(time.RFC3339) }

// MadeInWindow reports whether the engine made an object, at created,
// during the create request whose LabelMadeAt its labels carry: after the
// time recorded and before that request's deadline (SlowCallTimeout) ran
// out, give or take madeSlack. An object without the label was made by a
// version of the provider before it, and passes; one whose label or
// creation time does not parse does not.
func MadeInWindow(labels map[string]string, created string) bool {
	recorded, ok := labels[LabelMadeAt]
	if !ok {
		return true
	}
	at, err := time.Parse(time.RFC3339, recorded)
	if err != nil {
		return false
	}
	made, err := time.Parse(time.RFC3339Nano, created)
	if err != nil {
		return false
	}
	return !made.Before(at.Add(-madeSlack)) && !made.After(at.Add(SlowCallTimeout+madeSlack))
}

// Made is one object that carries a create or build token, as the engine
// reports it: its ID and its creation time.
type Made struct {
	ID      string
	Created time.Time
}

// FirstMade reports whether id is the object the engine made first among
// made, every object that carries the same token (id among them): the
// provider makes one object for each token, and a copy of its labels comes
// after it. Two made at the same instant prove neither; an id missing from
// made proves nothing.
func FirstMade(id string, made []Made) bool {
	var own *Made
	for i := range made {
		if made[i].ID == id {
			own = &made[i]
		}
	}
	if own == nil {
		return false
	}
	for _, m := range made {
		if m.ID != id && !m.Created.After(own.Created) {
			return false
		}
	}
	return true
}

// Provenance is who made a sandbox, as far as the provider can prove.
type Provenance int

const (
	// MadeByHand is a sandbox that carries none of the provider's
	// ownership labels: an import takes it as it is.
	MadeByHand Provenance = iota
	// MadeByProvider is a sandbox the provider can prove it created.
	MadeByProvider
	// LabelsNotItsOwn is a sandbox that carries the provider's labels
	// that the provider cannot prove it created: a copy of them, or
	// labels inherited from its image.
	LabelsNotItsOwn
)

// CarriesProviderLabels reports whether labels claim the provider made
// what carries them: its ownership label, or a create token.
func CarriesProviderLabels(labels map[string]string) bool {
	_, managed := labels[LabelManagedBy]
	_, token := labels[LabelCreateToken]
	return managed || token
}
