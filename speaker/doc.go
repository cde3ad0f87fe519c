// Package speaker holds the Speaker of the articles' demo: a ticker that
// appends "<time> <name> <counter>" lines to a file while it is told to speak.
package speaker
