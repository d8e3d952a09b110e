package docker

// SetWardenVersion makes the wardens this process makes carry version, as
// another version of the provider's would, until the returned function
// restores it.
func SetWardenVersion(version string) (restore func()) {
	was := wardenVersion
	wardenVersion = version
	return func() { wardenVersion = was }
}

// WardenVersionLabel is the label that records a warden's version.
const WardenVersionLabel = labelWardenVersion
