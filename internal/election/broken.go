package election

// BrokenForChaos is true only in a build with the tag chaosbroken, which
// removes the guards on purpose so that a chaos soak's checker can be seen
// to catch what follows. Recipes and commands with guards of their own
// (the lock's Lost at a disconnect, zklock's watchdog deadline) drop them
// in that build too.
const BrokenForChaos = brokenGuards
