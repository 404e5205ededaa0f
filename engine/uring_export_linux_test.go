package engine

import "github.com/gbench/gbench/engine/internal/netpoll"

// RefuseUring makes io_uring look refused with err until the returned
// function restores the probe: how auto behaves on a kernel or in a
// container that refuses it.
func RefuseUring(err error) (restore func()) { return netpoll.RefuseUring(err) }
