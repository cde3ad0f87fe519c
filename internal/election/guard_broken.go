//go:build chaosbroken

package election

// brokenGuards, under the build tag chaosbroken only, removes the paused
// leader's guards: it keeps speaking, whatever the policy, until it hears
// that its session expired, and Confirm says yes without asking. A speaker built so is wrong on purpose: `speaker chaos` must
// catch it (cmd/speaker/internal/chaos's TestSoakCatchesABrokenSpeaker).
const brokenGuards = true
