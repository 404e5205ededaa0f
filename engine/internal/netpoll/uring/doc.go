// Package uring is a small io_uring binding, what netpoll's ring
// transport needs and no more: a ring (New) with its submission and
// completion queues (Next, Publish, Enter, Completions, CQE, Release), and
// a ring of provided buffers for multishot receives (NewBufRing). The
// layouts and numbers are the kernel's (include/uapi/linux/io_uring.h);
// sizes_linux.go checks every struct it lays out against the kernel's ABI
// at compile time. Linux only; a Ring is used by one thread.
package uring
