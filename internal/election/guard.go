//go:build !chaosbroken

package election

// brokenGuards is false in every real build. The chaos soak's test builds
// the speaker with the tag chaosbroken to turn it on, and checks that its
// checker catches the double leader that follows (see guard_broken.go).
const brokenGuards = false
