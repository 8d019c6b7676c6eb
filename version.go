package redisson

// Version is this module's release version, without the leading "v" of its
// Git tag (tag v0.1.0 is Version "0.1.0"). scripts/release.sh sets it, and
// every inner module's requirement on this one, to the same value.
const Version = "0.1.0"
