package resp

import "bytes"

// maxClassLen bounds the error classes ErrorClass reports, so that a peer
// cannot make a caller keep arbitrarily long strings as class names.
const maxClassLen = 32

// ErrorClass returns the class of an error reply's text, as Redis defines
// it: the first word when that word is in upper case (letters, then letters,
// digits, '_' or '-'), such as "ERR", "WRONGTYPE", "NOAUTH", "MOVED" or
// "WRONGPASS". Any other text, including an empty one, is of class "ERR".
//
// ErrorClass allocates only for classes outside the ones Redis itself
// uses; it is safe for concurrent use.
func ErrorClass(msg []byte) string {
	word := msg
	if i := bytes.IndexByte(msg, ' '); i >= 0 {
		word = msg[:i]
	}
	if !isClass(word) {
		return "ERR"
	}
	if c := knownClass(word); c != "" {
		return c
	}
	return string(word)
}

func isClass(word []byte) bool {
	if len(word) == 0 || len(word) > maxClassLen || !isUpper(word[0]) {
		return false
	}
	for _, c := range word[1:] {
		if !isUpper(c) && !(c >= '0' && c <= '9') && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// knownClass returns the interned name of a class Redis or Redis Cluster
// sends, or "" for any other word.
func knownClass(word []byte) string {
	return knownClasses[string(word)] // this conversion does not allocate
}

var knownClasses = func() map[string]string {
	m := make(map[string]string)
	for _, c := range []string{
		"ERR", "WRONGTYPE", "NOAUTH", "OOM", "MOVED", "ASK", "NOSCRIPT",
		"BUSY", "BUSYKEY", "BUSYGROUP", "LOADING", "READONLY", "EXECABORT",
		"NOPERM", "WRONGPASS", "NOPROTO", "MISCONF", "MASTERDOWN",
		"NOREPLICAS", "NOTBUSY", "UNKILLABLE", "CLUSTERDOWN", "CROSSSLOT",
		"TRYAGAIN", "NOGROUP", "NOMASTERLINK", "DENIED", "UNBLOCKED",
	} {
		m[c] = c
	}
	return m
}()
