package program

import (
	"strings"
)

// split cuts a command line into words the way a POSIX shell quotes them,
// and no further: blanks separate words; 'single quotes' keep everything
// as it is; "double quotes" keep everything but a backslash before " or \;
// outside quotes a backslash keeps the next character. A template is run
// with exec, not sh -c, so that a name or a path with a blank in it cannot
// change what runs, and a program's SIGTERM reaches the program, not a
// shell in front of it.
func split(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, bad("--cmd has an unclosed ' at character %d", i+1)
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			end, err := doubleQuoted(s, i, &w)
			if err != nil {
				return nil, err
			}
			i = end
			inWord = true
		case c == '\\':
			if i+1 == len(s) {
				return nil, bad("--cmd ends with a lone \\")
			}
			i++
			w.WriteByte(s[i])
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// doubleQuoted copies the double-quoted string that opens at s[open] into
// w, and returns the index of its closing quote.
func doubleQuoted(s string, open int, w *strings.Builder) (int, error) {
	for i := open + 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i, nil
		case c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			i++
			w.WriteByte(s[i])
		default:
			w.WriteByte(c)
		}
	}
	return 0, bad("--cmd has an unclosed \" at character %d", open+1)
}
