package group

// SetTestHookBeforeMulti lets the tests act in Delete's window between its
// read of the members and its multi. Pass nil to remove the hook.
func SetTestHookBeforeMulti(f func(attempt int)) { testHookBeforeMulti = f }

// DeleteAttempts is deleteAttempts, for the tests.
const DeleteAttempts = deleteAttempts
