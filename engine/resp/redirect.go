package resp

import (
	"bytes"
	"net"
	"strconv"
)

// Redirect is a cluster's MOVED or ASK error reply: the slot and the node
// that serves it.
type Redirect struct {
	Ask  bool   // ASK: send ASKING then the command to Addr, this once; MOVED: the slot has moved
	Slot uint16 // the key's slot
	// Addr is "host:port"; an empty host means the node that sent the
	// redirect's own host (a node without a known endpoint).
	Addr string
}

// ParseRedirect parses the text of an error reply, such as
// "MOVED 3999 127.0.0.1:6381" or "ASK 3999 ::1:6381" (Redis writes IPv6
// addresses without brackets). It reports false for any other text. It
// allocates only the address of a redirect.
func ParseRedirect(msg []byte) (Redirect, bool) {
	var r Redirect
	switch {
	case bytes.HasPrefix(msg, []byte("MOVED ")):
		msg = msg[len("MOVED "):]
	case bytes.HasPrefix(msg, []byte("ASK ")):
		r.Ask, msg = true, msg[len("ASK "):]
	default:
		return r, false
	}
	slot, addr, ok := bytes.Cut(msg, []byte(" "))
	if !ok {
		return Redirect{}, false
	}
	n, err := strconv.ParseUint(string(slot), 10, 16) // does not allocate
	colon := bytes.LastIndexByte(addr, ':')
	if err != nil || n >= SlotCount || colon < 0 {
		return Redirect{}, false
	}
	port, err := strconv.ParseUint(string(addr[colon+1:]), 10, 16)
	if err != nil || port == 0 {
		return Redirect{}, false
	}
	host := addr[:colon]
	if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
		host = host[1 : len(host)-1]
	}
	if bytes.ContainsAny(host, "[] ") {
		return Redirect{}, false
	}
	r.Slot, r.Addr = uint16(n), net.JoinHostPort(string(host), string(addr[colon+1:]))
	return r, true
}
