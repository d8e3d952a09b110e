package engine

// SeedDir is the directory, at the helper container's root, where it
// mounts the volume: a seed's tar holds its files under it, so that the
// engine applies the seed's owner to the volume's root too.
const SeedDir = "seed"
